create or replace function q.deps_policy(on_parent_failure text)
returns "char"
language plpgsql
immutable
set search_path = pg_catalog, pg_temp
as $$
begin
  return case deps_policy.on_parent_failure
    when 'cancel' then 'c'
    when 'run' then 'r'
    when 'hold' then 'h'
    else q.deps_bad_policy(deps_policy.on_parent_failure)
  end;
end
$$;

comment on function q.deps_policy(text) is
  'Maps on_parent_failure (cancel, run, hold) to q_data.job_dep.on_failure (c, r, h); 22023 for anything else.';

revoke all on function q.deps_policy(text) from public;
