create or replace function q.cron_value(expr text, what text, field text, token text, lo integer, hi integer, names text[])
returns integer
language plpgsql
immutable
set search_path = pg_catalog, pg_temp
as $$
declare
  v_value integer;
begin
  if cron_value.token ~ '^[0-9]{1,4}$' then
    v_value := cron_value.token::integer;
  elsif cron_value.names is not null and lower(cron_value.token) = any(cron_value.names) then
    v_value := cron_value.lo + array_position(cron_value.names, lower(cron_value.token)) - 1;
  else
    raise exception 'cron expression "%": % field "%": "%" is not a number%',
      cron_value.expr, cron_value.what, cron_value.field, cron_value.token,
      case when cron_value.names is null then '' else ' or a name (' || array_to_string(cron_value.names, ', ') || ')' end
      using errcode = '22023';
  end if;
  if v_value not between cron_value.lo and cron_value.hi then
    raise exception 'cron expression "%": % field "%": % is out of range %-%',
      cron_value.expr, cron_value.what, cron_value.field, v_value, cron_value.lo, cron_value.hi
      using errcode = '22023';
  end if;
  return v_value;
end
$$;

comment on function q.cron_value(text, text, text, text, integer, integer, text[]) is
  'One value of a cron field (a number in lo..hi, or a name: jan..dec, sun..sat); raises 22023 naming the field otherwise.';

revoke all on function q.cron_value(text, text, text, text, integer, integer, text[]) from public;
