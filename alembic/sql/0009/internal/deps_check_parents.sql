create or replace function q.deps_check_parents(after bigint[])
returns bigint[]
language plpgsql
immutable
set search_path = pg_catalog, pg_temp
as $$
begin
  if deps_check_parents.after is null then
    return '{}';
  end if;
  if array_position(deps_check_parents.after, null) is not null then
    raise exception 'after must not contain NULL' using errcode = '22004';
  end if;
  -- The cap bounds what one enqueue locks and what one parent's end reads
  -- per child; a fan-in of 10,000 parents fits.
  if cardinality(deps_check_parents.after) > 10000 then
    raise exception 'a job can wait for at most 10000 parents, got %', cardinality(deps_check_parents.after)
      using errcode = '54000';
  end if;
  -- Sorted and distinct: parents are locked in id order (see q.deps_mark_parents).
  return array(select distinct x from unnest(deps_check_parents.after) x order by x);
end
$$;

comment on function q.deps_check_parents(bigint[]) is
  'Validates an after list (no NULL: 22004; at most 10000 parents: 54000) and returns it sorted and distinct.';

revoke all on function q.deps_check_parents(bigint[]) from public;
