-- The bound (sql/schema/065_flow.sql): after a sweep, a key has no more slot
-- rows than admitted jobs (waiting, scheduled by a retry or a key rate, or
-- running), and an idle key has none, whatever its rate window says (0007:
-- K rows per key from its first job, kept while a start was in the window).
begin;
select plan(3);

select q.configure('bound', key_concurrency => 4, key_rate => 100, key_per => '1 hour') \g /dev/null
-- 50 keys with 12 jobs each, 100 with one each.
select q.enqueue_many('bound', (select jsonb_agg(i) from generate_series(1, 700) i),
                      concurrency_keys => array(select case when i <= 600 then 'k' || (i % 50) else 'one' || i end
                                                  from generate_series(1, 700) i)) \g /dev/null
-- Some run, some finish, some fail and come back, some are cancelled.
create temporary table taken as select c.id, c.token from q.claim('bound', 250) c;
select q.complete(t.id, t.token) from (select * from taken order by id limit 60) t \g /dev/null
select q.fail(t.id, t.token, 'again') from (select * from taken order by id offset 60 limit 30) t \g /dev/null
select q.cancel(j.id) from q_data.job j where j.state = 'h' and j.id % 7 = 0 \g /dev/null
select q.flow_sweep(null, 10000) \g /dev/null

select is(
  array(select s.key from q_data.key_slot s
         group by s.key
        having count(*) > (select count(*) from q_data.job j
                            where j.concurrency_key = s.key and j.key_slot is not null)
         order by 1),
  '{}'::text[], 'no key has more slot rows than admitted jobs');
select is((select count(*)::integer from q_data.key_slot where job_id is null), 0, 'no free row after the sweep');

-- Everything finishes: no row at all.
select q.cancel(j.id) from q_data.job j where j.state <> 'r' \g /dev/null
select q.complete(t.id, t.token) from taken t join q_data.job j on j.id = t.id and j.state = 'r' and j.token = t.token \g /dev/null
select q.flow_sweep(null, 10000) \g /dev/null
select is((select count(*)::integer from q_data.key_slot), 0, 'idle keys have no slot row');

select * from finish();
rollback;
