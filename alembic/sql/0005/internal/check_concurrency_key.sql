create or replace function q.check_concurrency_key(key text)
returns void
language plpgsql
immutable
set search_path = pg_catalog, pg_temp
as $$
begin
  -- A key is an index entry of every held job and a slot row: keep it short.
  if check_concurrency_key.key is not null and octet_length(check_concurrency_key.key) not between 1 and 512 then
    raise exception 'concurrency_key must be 1 to 512 bytes, got %', octet_length(check_concurrency_key.key)
      using errcode = '22023';
  end if;
end
$$;

comment on function q.check_concurrency_key(text) is
  'Raises 22023 for a concurrency_key that is empty or over 512 bytes.';

revoke all on function q.check_concurrency_key(text) from public;
