create or replace function q.cron_prev(spec q.cron_spec, timezone text, before timestamptz)
returns timestamptz
language plpgsql
stable
set search_path = pg_catalog, pg_temp
as $$
declare
  -- The mirror of q.cron_next (catch-up needs the newest missed slots
  -- without walking forward through a week of them).
  v_l      timestamp := date_trunc('minute', cron_prev.before at time zone cron_prev.timezone);
  v_limit  timestamp := v_l - interval '8 years 1 day';
  v_x      integer;
  v_n      integer;
  v_day    boolean;
  v_at     timestamptz;
begin
  while v_l > v_limit loop
    v_x := extract(month from v_l)::integer;
    if not v_x = any(cron_prev.spec.months) then
      v_n := (select max(m) from unnest(cron_prev.spec.months) m where m < v_x);
      v_l := case when v_n is null
                  then make_timestamp(extract(year from v_l)::integer - 1,
                                      cron_prev.spec.months[cardinality(cron_prev.spec.months)], 1, 0, 0, 0)
                  else make_timestamp(extract(year from v_l)::integer, v_n, 1, 0, 0, 0) end
             + interval '1 month' - interval '1 minute';
      continue;
    end if;
    v_day := case when cron_prev.spec.days_star or cron_prev.spec.weekdays_star
                  then extract(day from v_l)::integer = any(cron_prev.spec.days)
                       and extract(dow from v_l)::integer = any(cron_prev.spec.weekdays)
                  else extract(day from v_l)::integer = any(cron_prev.spec.days)
                       or extract(dow from v_l)::integer = any(cron_prev.spec.weekdays) end;
    if not v_day then
      v_l := date_trunc('day', v_l) - interval '1 minute';
      continue;
    end if;
    v_x := extract(hour from v_l)::integer;
    if not v_x = any(cron_prev.spec.hours) then
      v_n := (select max(h) from unnest(cron_prev.spec.hours) h where h < v_x);
      v_l := case when v_n is null then date_trunc('day', v_l) - interval '1 minute'
                  else date_trunc('day', v_l) + make_interval(hours => v_n, mins => 59) end;
      continue;
    end if;
    v_x := extract(minute from v_l)::integer;
    if not v_x = any(cron_prev.spec.minutes) then
      v_n := (select max(m) from unnest(cron_prev.spec.minutes) m where m < v_x);
      v_l := case when v_n is null then date_trunc('hour', v_l) - interval '1 minute'
                  else date_trunc('hour', v_l) + make_interval(mins => v_n) end;
      continue;
    end if;
    v_at := v_l at time zone cron_prev.timezone;
    if v_at < cron_prev.before then
      return v_at;
    end if;
    v_l := v_l - interval '1 minute';
  end loop;
  return null;
end
$$;

comment on function q.cron_prev(q.cron_spec, text, timestamptz) is
  'The last slot of a cron schedule strictly before the given instant (the mirror of q.cron_next); NULL if none within 8 years.';

revoke all on function q.cron_prev(q.cron_spec, text, timestamptz) from public;
