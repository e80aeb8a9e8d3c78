create or replace function q.check_claim(id bigint, token uuid)
returns void
language plpgsql
immutable
set search_path = pg_catalog, pg_temp
as $$
begin
  if check_claim.id is null or check_claim.token is null then
    raise exception 'job id and token must not be null (they come from q.claim)'
      using errcode = '22004';
  end if;
end
$$;

comment on function q.check_claim(bigint, uuid) is
  'Raises 22004 when a job id or claim token is NULL.';

revoke all on function q.check_claim(bigint, uuid) from public;
