create or replace function q.check_queue_name(queue text)
returns void
language plpgsql
immutable
set search_path = pg_catalog, pg_temp
as $$
begin
  if check_queue_name.queue is null then
    raise exception 'queue name must not be null'
      using errcode = '22004';
  end if;
  if check_queue_name.queue !~ '^[A-Za-z0-9][A-Za-z0-9_.:-]{0,62}$' then
    raise exception 'invalid queue name %: it must be 1 to 63 characters of A-Z a-z 0-9 _ . : - and start with a letter or digit',
      quote_literal(left(check_queue_name.queue, 100))
      using errcode = '22023',
            hint = 'allowed pattern: ^[A-Za-z0-9][A-Za-z0-9_.:-]{0,62}$';
  end if;
end
$$;

comment on function q.check_queue_name(text) is
  'Raises 22023 unless the name matches ^[A-Za-z0-9][A-Za-z0-9_.:-]{0,62}$ (22004 when NULL).';

revoke all on function q.check_queue_name(text) from public;
