-- Since revision 0014 no trigger sees a job's row deleted: each function that
-- deletes from q_data.job calls q.job_ended for the rows with slots,
-- children, parents or a batch (sql/internal/job_ended.sql). A function added
-- later that deletes jobs and forgets it would leak flow-control slots and
-- strand children; this test names it. (The behaviour of each path is held by
-- the flow, deps and batch folders.)
begin;
select plan(2);

select is(
  (select coalesce(array_agg(p.proname::text order by p.proname), '{}')
     from pg_proc p
    where p.pronamespace = 'q'::regnamespace
      and p.prosrc ~* 'delete\s+from\s+q_data\.job\s'
      and p.prosrc !~ 'q\.job_ended\('),
  '{}'::text[],
  'every function that deletes from q_data.job calls q.job_ended');
select cmp_ok(
  (select count(*)::integer from pg_proc p
    where p.pronamespace = 'q'::regnamespace and p.prosrc ~* 'delete\s+from\s+q_data\.job\s'),
  '>=', 8,
  '(the pattern finds the deleting functions: complete, complete_many, fail, reap, cancel, cancel_jobs, purge, deps_resolve)');

select * from finish();
rollback;
