create or replace function q.parent_results(id bigint)
returns table (id bigint, queue text, state text, result jsonb, last_error text, attempts integer,
               finished_at timestamptz, progress jsonb)
language sql
stable
security definer
set search_path = pg_catalog, pg_temp
as $$
  -- A child's inputs: what became of each job it was enqueued after
  -- (q.parents, by index on q_data.job_dep), in parent id order. Results
  -- live as long as their queue's keep_results: a child that starts later
  -- than that reads state completed with a null result.
  select r.* from q.results(q.parents(parent_results.id)) r order by r.id
$$;

comment on function q.parent_results(bigint) is
  'The outcome of each parent of job id (the jobs it was enqueued after, q.parents): the q.results row of each, in id order; empty for a job without parents.';

revoke all on function q.parent_results(bigint) from public;
grant execute on function q.parent_results(bigint) to pgq_worker;
