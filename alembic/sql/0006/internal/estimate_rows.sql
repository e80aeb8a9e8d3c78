create or replace function q.estimate_rows(statement text)
returns bigint
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_plan json;
begin
  -- The planner's row estimate (from ANALYZE's statistics, the joint
  -- queue/state statistics q.job_queue_state_stats, and the table's current
  -- size): microseconds instead of a count over millions of rows. Callers
  -- pass statements they built themselves with format('%s') of integers.
  execute 'explain (format json) ' || estimate_rows.statement into v_plan;
  return round((v_plan -> 0 -> 'Plan' ->> 'Plan Rows')::numeric)::bigint;
end
$$;

comment on function q.estimate_rows(text) is
  'The planner''s estimate of how many rows a statement returns (EXPLAIN, not run). For q.stats''s counts above exact_up_to; only ever given statements pgq builds.';

revoke all on function q.estimate_rows(text) from public;
