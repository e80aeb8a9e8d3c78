-- A key's slot rows are made as its jobs are admitted, one each, up to
-- key_concurrency (revision 0008): K = 1000 does not mean 1000 rows per key
-- (0007: one enqueue_many of 1,000 fresh keys wrote 1,000,000 key slots and
-- 1,000,000 rate slots).
begin;
select plan(5);

select q.configure('lazy', key_concurrency => 1000, key_rate => 1000, key_per => '1 day') \g /dev/null
select q.enqueue_many('lazy', '[1, 2, 3]', concurrency_key => 'one') \g /dev/null
select results_eq($$ select n::integer, job_id is not null from q_data.key_slot where key = 'one' order by n $$,
  $$ values (1, true), (2, true), (3, true) $$, 'three admitted jobs, three slot rows, each held');

select q.enqueue_many('lazy', (select jsonb_agg(i) from generate_series(1, 1000) i),
                      concurrency_keys => array(select 'fresh-' || i from generate_series(1, 1000) i)) \g /dev/null
select is((select count(*)::integer from q_data.key_slot where key like 'fresh-%'), 1000,
  '1,000 fresh keys with a job each: 1,000 slot rows');
select is((select count(*)::integer from q_data.key_rate_slot), 0, 'and no rate slot before a start');

-- K = 2: the third job of a key is held, and makes no row.
select q.configure('two', key_concurrency => 2) \g /dev/null
select q.enqueue_many('two', '[1, 2, 3]', concurrency_key => 'k') \g /dev/null
select results_eq($$ select state::text, count(*)::integer from q_data.job j join q_data.queue qq on qq.id = j.queue_id
                      where qq.name = 'two' group by 1 order by 1 $$,
  $$ values ('h', 1), ('w', 2) $$, 'K = 2: two admitted, one held');
select is((select count(*)::integer from q_data.key_slot s join q_data.queue qq on qq.id = s.queue_id where qq.name = 'two'), 2,
  'two slot rows');

select * from finish();
rollback;
