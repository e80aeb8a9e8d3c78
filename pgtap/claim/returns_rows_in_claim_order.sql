-- A batch claim returns its rows in claim order (design.md#batch-claims-in-claim-order):
-- highest priority first, then place in line, and a released job keeps its
-- place. 0002 returned UPDATE ... RETURNING's physical order: priorities
-- 0, 7, 0, 3 enqueued as jobs 1-4 came back as 1, 2, 3, 4, not 2, 4, 1, 3.
begin;
select plan(3);

select q.enqueue('order', '1', priority => 0) as j1 \gset
select q.enqueue('order', '2', priority => 7) as j2 \gset
select q.enqueue('order', '3', priority => 0) as j3 \gset
select q.enqueue('order', '4', priority => 3) as j4 \gset

select results_eq($$ select id from q.claim('order', 10) $$,
  format('values (%s::bigint), (%s), (%s), (%s)', :j2, :j4, :j1, :j3),
  'a batch comes back highest priority first, then oldest');

-- Give them all back; release the oldest low-priority job last.
select count(q.release(id, token)) from q_data.job where state = 'r' and id <> :j1 \g /dev/null
select count(q.release(id, token)) from q_data.job where state = 'r' \g /dev/null
select results_eq($$ select id from q.claim('order', 10) $$,
  format('values (%s::bigint), (%s), (%s), (%s)', :j2, :j4, :j1, :j3),
  'released jobs keep their place in line, whatever order they came back in');

select count(q.release(id, token)) from q_data.job where state = 'r' \g /dev/null
select q.enqueue('order', '5', priority => 3) as j5 \gset
select results_eq($$ select id from q.claim('order', 3) $$,
  format('values (%s::bigint), (%s), (%s)', :j2, :j4, :j5),
  'a later job of a higher priority goes before older lower ones');

select * from finish();
rollback;
