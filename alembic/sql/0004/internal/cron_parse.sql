create or replace function q.cron_parse(expr text)
returns q.cron_spec
language plpgsql
immutable
set search_path = pg_catalog, pg_temp
as $$
declare
  v_expr    text := lower(btrim(cron_parse.expr));
  v_fields  text[];
  v_spec    q.cron_spec;
begin
  if cron_parse.expr is null then
    raise exception 'cron expression must not be null' using errcode = '22004';
  end if;
  if v_expr like '@%' then
    v_expr := case v_expr
                when '@yearly' then '0 0 1 1 *'
                when '@annually' then '0 0 1 1 *'
                when '@monthly' then '0 0 1 * *'
                when '@weekly' then '0 0 * * 0'
                when '@daily' then '0 0 * * *'
                when '@midnight' then '0 0 * * *'
                when '@hourly' then '0 * * * *'
              end;
    if v_expr is null then
      raise exception 'cron expression "%": unknown macro; use @yearly, @annually, @monthly, @weekly, @daily, @midnight or @hourly', cron_parse.expr
        using errcode = '22023';
    end if;
  end if;
  v_fields := regexp_split_to_array(v_expr, '\s+');
  if cardinality(v_fields) <> 5 or v_expr = '' then
    raise exception 'cron expression "%": expected 5 fields (minute hour day-of-month month day-of-week), got %',
      cron_parse.expr, case when v_expr = '' then 0 else cardinality(v_fields) end
      using errcode = '22023';
  end if;
  v_spec.minutes := q.cron_field(cron_parse.expr, 'minute', v_fields[1], 0, 59);
  v_spec.hours := q.cron_field(cron_parse.expr, 'hour', v_fields[2], 0, 23);
  v_spec.days := q.cron_field(cron_parse.expr, 'day-of-month', v_fields[3], 1, 31);
  v_spec.months := q.cron_field(cron_parse.expr, 'month', v_fields[4], 1, 12,
    array['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec']);
  -- 0 and 7 are both Sunday.
  v_spec.weekdays := array(
    select distinct x % 7
      from unnest(q.cron_field(cron_parse.expr, 'day-of-week', v_fields[5], 0, 7,
                               array['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'])) x
     order by 1);
  v_spec.days_star := v_fields[3] like '*%';
  v_spec.weekdays_star := v_fields[5] like '*%';
  return v_spec;
end
$$;

comment on function q.cron_parse(text) is
  'Parses a 5-field cron expression (minute hour day-of-month month day-of-week; ranges, lists, steps, month and weekday names) or a macro (@yearly @annually @monthly @weekly @daily @midnight @hourly); raises 22023 naming the bad field.';

revoke all on function q.cron_parse(text) from public;
