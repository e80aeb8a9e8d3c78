-- q.complete_many passes each job's end on (q.job_ended, revision 0014: no
-- delete trigger does it any more), in one call of many jobs, on both of its
-- paths: the set-based one (no results, no queue keeps completed jobs) and
-- the one that stores results. A queue slot is freed, a key slot passed to
-- the key's held job, a parent's child made waiting, a batch's callback
-- enqueued, a child's end recorded for q.purge_deps.
begin;
select plan(12);
\ir ../_helpers.psql

select q.configure('cm_lim', concurrency => 1) \g /dev/null
select q.configure('cm_key', key_concurrency => 1) \g /dev/null
select q.enqueue('cm_lim', '{"n": 1}') as lim1 \gset
select q.enqueue('cm_lim', '{"n": 2}') as lim2 \gset
select q.enqueue('cm_key', '{"n": 1}', concurrency_key => 'k') as key1 \gset
select q.enqueue('cm_key', '{"n": 2}', concurrency_key => 'k') as key2 \gset
select q.enqueue('cm_parent', '{}') as parent \gset
select q.enqueue_after('cm_child', '{}', array[:parent]) as child \gset
select q.create_batch('cm_callback') as batch \gset
select q.enqueue_after('cm_member', '{}', '{}', batch => :batch) as member \gset
select q.seal_batch(:batch) \g /dev/null

create temporary table claimed as
  select * from q.claim('cm_lim', 1) union all select * from q.claim('cm_key', 1)
  union all select * from q.claim('cm_parent', 1) union all select * from q.claim('cm_member', 1);
select is((select array_agg(id order by id) from claimed), array[:lim1, :key1, :parent, :member]::bigint[],
  'claimed: the first of each limited queue, the parent, the batch member');
select is((select state from q_data.job where id = :key2), 'h'::"char", '(the second keyed job is held behind the first)');
select ok(not exists (select from q_data.queue where keep_completed), '(no queue keeps completed jobs: the set-based path)');

select is((select array_agg(id order by id) from q.complete_many(
             (select array_agg(id order by id) from claimed), (select array_agg(token order by id) from claimed)) as id),
  array[:lim1, :key1, :parent, :member]::bigint[], 'q.complete_many completes all four in one call');
select is((select array_agg(id) from q.claim('cm_lim', 1)), array[:lim2]::bigint[], 'the queue slot is free: the next job is claimed');
select is((select state from q_data.job where id = :key2), 'w'::"char", 'the key slot went to the held job');
select is((select state from q.jobs(id => :child)), 'waiting', 'the child of the completed parent is waiting');
select is((select count(*)::integer from q.jobs('cm_callback')), 1, 'the batch''s callback is enqueued');

-- The path that stores results: the child completes with one.
create temporary table child_claim as select * from q.claim('cm_child', 1);
select is((select array_agg(id) from child_claim), array[:child]::bigint[], '(the child is claimed)');
select is((select array_agg(id) from q.complete_many(array[:child]::bigint[],
             array[(select token from child_claim)]::uuid[], array['{"ok": true}'::jsonb]) as id),
  array[:child]::bigint[], 'the child completes with a result');
select is((select result from q.result(:child)), '{"ok": true}'::jsonb, 'its result is kept');
select ok(exists (select from q_data.job_dep_ended where child_id = :child), 'and its end is recorded for q.purge_deps');

select * from finish();
rollback;
