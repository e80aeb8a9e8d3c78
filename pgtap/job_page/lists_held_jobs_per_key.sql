-- q.job_page(state => 'held') lists the jobs held back by their concurrency
-- key (0008, design.md#held-jobs-are-visible: the Queues page counted them and no list showed
-- them): per key in admission order (priority first, then id), keys in
-- order, keyset-paged through job_held_idx.
begin;
select plan(4);

select q.configure('keyed', key_concurrency => 1) \g /dev/null
select q.enqueue('keyed', '{"k": "b", "n": 1}', concurrency_key => 'b') as b1 \gset
select q.enqueue('keyed', '{"k": "b", "n": 2}', concurrency_key => 'b') as b2 \gset
select q.enqueue('keyed', '{"k": "b", "n": 3}', concurrency_key => 'b', priority => 5) as b3 \gset
select q.enqueue('keyed', '{"k": "a", "n": 1}', concurrency_key => 'a') as a1 \gset
select q.enqueue('keyed', '{"k": "a", "n": 2}', concurrency_key => 'a') as a2 \gset

select results_eq($$ select id from q.job_page('keyed', 'held') $$,
  format($$ values (%s::bigint), (%s), (%s) $$, :a2, :b3, :b2),
  'held jobs: key a, then key b by priority then id (b1 and a1 hold the slots)');
select results_eq($$ select state from q.job_page('keyed', 'held') limit 1 $$, $$ values ('held') $$,
  'their state reads held');

select next_after as after1 from q.job_page('keyed', 'held', page_size => 1) \gset
select next_after as after2 from q.job_page('keyed', 'held', after => :'after1', page_size => 1) \gset
select results_eq(format($$ select id from q.job_page('keyed', 'held', after => %L, page_size => 1) $$, :'after1'),
  array[:b3::bigint], 'page 2 of 1 row: the next key''s first');
select results_eq(format($$ select id from q.job_page('keyed', 'held', after => %L, page_size => 5) $$, :'after2'),
  array[:b2::bigint], 'page 3: the rest');

select * from finish();
rollback;
