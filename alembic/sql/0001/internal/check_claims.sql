create or replace function q.check_claims(ids bigint[], tokens uuid[], errors text[] default null)
returns void
language plpgsql
immutable
set search_path = pg_catalog, pg_temp
as $$
begin
  if check_claims.ids is null or check_claims.tokens is null then
    raise exception 'ids and tokens must not be null'
      using errcode = '22004';
  end if;
  if cardinality(check_claims.ids) <> cardinality(check_claims.tokens)
     or (check_claims.errors is not null and cardinality(check_claims.errors) <> cardinality(check_claims.ids)) then
    raise exception 'ids, tokens (and errors) must have the same length, got % and %',
      cardinality(check_claims.ids), cardinality(check_claims.tokens)
      using errcode = '22023';
  end if;
  if cardinality(check_claims.ids) > 10000 then
    raise exception 'at most 10000 jobs per call, got %', cardinality(check_claims.ids)
      using errcode = '54000';
  end if;
end
$$;

comment on function q.check_claims(bigint[], uuid[], text[]) is
  'Raises 22004/22023/54000 unless the batch arrays are non-NULL, of equal length and at most 10000 long.';

revoke all on function q.check_claims(bigint[], uuid[], text[]) from public;
