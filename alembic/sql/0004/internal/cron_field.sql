create or replace function q.cron_field(expr text, what text, field text, lo integer, hi integer, names text[] default null)
returns integer[]
language plpgsql
immutable
set search_path = pg_catalog, pg_temp
as $$
declare
  v_item   text;
  v_match  text[];
  v_from   integer;
  v_to     integer;
  v_step   integer;
  v_set    integer[] := '{}';
begin
  -- A list of items; each is *, a value, or a range, optionally with /step
  -- (a value with a step, "5/15", runs from the value to the field's end).
  foreach v_item in array string_to_array(cron_field.field, ',') loop
    v_match := regexp_match(v_item, '^(\*|[A-Za-z0-9]+)(?:-([A-Za-z0-9]+))?(?:/([0-9]+))?$');
    if v_match is null or (v_match[1] = '*' and v_match[2] is not null) then
      raise exception 'cron expression "%": % field "%": "%" is not a value, range (a-b), step (*/n, a-b/n) or list (a,b)',
        cron_field.expr, cron_field.what, cron_field.field, v_item
        using errcode = '22023';
    end if;
    if v_match[1] = '*' then
      v_from := cron_field.lo;
      v_to := cron_field.hi;
    else
      v_from := q.cron_value(cron_field.expr, cron_field.what, cron_field.field, v_match[1], cron_field.lo, cron_field.hi, cron_field.names);
      v_to := case
                when v_match[2] is not null then
                  q.cron_value(cron_field.expr, cron_field.what, cron_field.field, v_match[2], cron_field.lo, cron_field.hi, cron_field.names)
                when v_match[3] is not null then cron_field.hi
                else v_from
              end;
    end if;
    if v_from > v_to then
      raise exception 'cron expression "%": % field "%": range %-% runs backwards',
        cron_field.expr, cron_field.what, cron_field.field, v_match[1], v_match[2]
        using errcode = '22023';
    end if;
    -- (length first: a 20-digit step would overflow the cast)
    v_step := case when length(v_match[3]) <= 4 then v_match[3]::integer end;
    if v_match[3] is not null and (v_step is null or v_step not between 1 and cron_field.hi - cron_field.lo + 1) then
      raise exception 'cron expression "%": % field "%": step % must be between 1 and %',
        cron_field.expr, cron_field.what, cron_field.field, v_match[3], cron_field.hi - cron_field.lo + 1
        using errcode = '22023';
    end if;
    v_step := coalesce(v_step, 1);
    v_set := v_set || array(select generate_series(v_from, v_to, v_step));
  end loop;
  return array(select distinct x from unnest(v_set) x order by 1);
end
$$;

comment on function q.cron_field(text, text, text, integer, integer, text[]) is
  'The sorted set of values one cron field allows (*, a, a-b, */n, a-b/n, a/n, lists); raises 22023 naming the field and the bad part.';

revoke all on function q.cron_field(text, text, text, integer, integer, text[]) from public;
