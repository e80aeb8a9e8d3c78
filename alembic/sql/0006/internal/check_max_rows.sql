create or replace function q.check_max_rows(max_rows integer, upper_bound integer)
returns void
language plpgsql
immutable
set search_path = pg_catalog, pg_temp
as $$
begin
  if check_max_rows.max_rows is null or check_max_rows.max_rows not between 1 and check_max_rows.upper_bound then
    raise exception 'max_rows must be between 1 and %, got %', check_max_rows.upper_bound,
      coalesce(check_max_rows.max_rows::text, 'NULL')
      using errcode = '22023';
  end if;
end
$$;

comment on function q.check_max_rows(integer, integer) is
  'Raises 22023 unless max_rows is between 1 and upper_bound: every bulk call is bounded.';

revoke all on function q.check_max_rows(integer, integer) from public;
