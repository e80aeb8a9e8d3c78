create or replace function q.parents(id bigint)
returns bigint[]
language sql
stable
security definer
set search_path = pg_catalog, pg_temp
as $$
  select array(select d.parent_id from q_data.job_dep d where d.child_id = parents.id order by d.parent_id)
$$;

comment on function q.parents(bigint) is
  'The ids of the jobs job id was enqueued after (empty if none), sorted; for a live or finished child.';

revoke all on function q.parents(bigint) from public;
grant execute on function q.parents(bigint) to pgq_worker;
