create or replace function q.deps_bad_policy(on_parent_failure text)
returns "char"
language plpgsql
immutable
set search_path = pg_catalog, pg_temp
as $$
begin
  raise exception 'on_parent_failure must be cancel, run or hold, got %', coalesce(quote_literal(deps_bad_policy.on_parent_failure), 'NULL')
    using errcode = '22023';
end
$$;

comment on function q.deps_bad_policy(text) is
  'Raises 22023 for an unknown on_parent_failure (q.deps_policy''s error branch).';

revoke all on function q.deps_bad_policy(text) from public;
