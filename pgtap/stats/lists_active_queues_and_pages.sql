-- q.stats lists ACTIVE queues only (0008, design.md#queue-names-cost-nothing-when-idle: 0007 visited every
-- queue name ever used, ~0.1 ms each): a queue with jobs, history, settings
-- other than the defaults, a schedule or an outcome in the last hour. Idle
-- names come with include_idle => true. At most max_queues rows per call, in
-- name order, after `after`: keyset paging.
begin;
select plan(9);

select q.enqueue('a-waiting', '{}') \g /dev/null
select q.enqueue('b-scheduled', '{}', run_at => clock_timestamp() + interval '1 hour') \g /dev/null
select q.configure('c-configured', max_attempts => 3) \g /dev/null
select q.enqueue('d-cancelled', '{}') as cancelled_id \gset
select q.cancel(:cancelled_id) \g /dev/null
select q.enqueue('e-done', '{}') \g /dev/null
select q.complete(id, token) from q.claim('e-done') \g /dev/null
select q.enqueue('f-purged', '{}') \g /dev/null
select q.purge('f-purged') \g /dev/null
-- 2,000 names used once and empty now (their jobs purged): idle.
select count(q.enqueue('idle-' || g, '{}')) from generate_series(1, 2000) g \g /dev/null
select count(*) from generate_series(1, 2000) g cross join lateral q.purge('idle-' || g) \g /dev/null

select results_eq($$ select queue from q.stats() $$,
  $$ values ('a-waiting'), ('b-scheduled'), ('c-configured'), ('d-cancelled'), ('e-done') $$,
  'active queues only: jobs, settings, history, a recent outcome; purged names are left out');
select is((select count(*)::integer from q.stats(include_idle => true)), 1000,
  'include_idle lists every name, at most max_queues (default 1000) of them');
select is((select count(*)::integer from q.stats(include_idle => true, max_queues => 100000)), 2006,
  'include_idle with a larger max_queues: all 2,006 names');
select results_eq($$ select queue from q.stats(max_queues => 2) $$,
  $$ values ('a-waiting'), ('b-scheduled') $$, 'max_queues => 2: the first two by name');
select results_eq($$ select queue from q.stats(max_queues => 2, after => 'b-scheduled') $$,
  $$ values ('c-configured'), ('d-cancelled') $$, 'after => the last name: the next page');
select results_eq($$ select queue from q.stats(after => 'e-done') $$,
  $$ select null::text where false $$, 'after the last active queue: nothing');
select throws_ok($$ select * from q.stats(max_queues => 0) $$, '22023', null, 'max_queues below 1 is refused');
select throws_ok($$ select * from q.stats(max_queues => null) $$, '22023', null, 'max_queues NULL is refused');
select throws_ok($$ select * from q.stats(include_idle => null) $$, '22004', null, 'include_idle NULL is refused');

select * from finish();
rollback;
