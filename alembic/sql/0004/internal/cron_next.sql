create or replace function q.cron_next(spec q.cron_spec, timezone text, after timestamptz)
returns timestamptz
language plpgsql
stable
set search_path = pg_catalog, pg_temp
as $$
declare
  -- The search walks wall-clock time in the schedule's timezone, one field
  -- at a time (a month that does not match skips to the next allowed month,
  -- and so on), so it takes tens of steps, not one per minute.
  v_l      timestamp := date_trunc('minute', cron_next.after at time zone cron_next.timezone) + interval '1 minute';
  -- Eight years hold at least one of every day (Feb 29 included: 2096 -> 2104).
  v_limit  timestamp := v_l + interval '8 years 1 day';
  v_x      integer;
  v_n      integer;
  v_day    boolean;
  v_at     timestamptz;
begin
  while v_l < v_limit loop
    v_x := extract(month from v_l)::integer;
    if not v_x = any(cron_next.spec.months) then
      v_n := (select min(m) from unnest(cron_next.spec.months) m where m > v_x);
      v_l := case when v_n is null
                  then make_timestamp(extract(year from v_l)::integer + 1, cron_next.spec.months[1], 1, 0, 0, 0)
                  else make_timestamp(extract(year from v_l)::integer, v_n, 1, 0, 0, 0) end;
      continue;
    end if;
    -- Classic cron: both day fields restricted = either matches; otherwise both must.
    v_day := case when cron_next.spec.days_star or cron_next.spec.weekdays_star
                  then extract(day from v_l)::integer = any(cron_next.spec.days)
                       and extract(dow from v_l)::integer = any(cron_next.spec.weekdays)
                  else extract(day from v_l)::integer = any(cron_next.spec.days)
                       or extract(dow from v_l)::integer = any(cron_next.spec.weekdays) end;
    if not v_day then
      v_l := date_trunc('day', v_l) + interval '1 day';
      continue;
    end if;
    v_x := extract(hour from v_l)::integer;
    if not v_x = any(cron_next.spec.hours) then
      v_n := (select min(h) from unnest(cron_next.spec.hours) h where h > v_x);
      v_l := case when v_n is null then date_trunc('day', v_l) + interval '1 day'
                  else date_trunc('day', v_l) + make_interval(hours => v_n) end;
      continue;
    end if;
    v_x := extract(minute from v_l)::integer;
    if not v_x = any(cron_next.spec.minutes) then
      v_n := (select min(m) from unnest(cron_next.spec.minutes) m where m > v_x);
      v_l := case when v_n is null then date_trunc('hour', v_l) + interval '1 hour'
                  else date_trunc('hour', v_l) + make_interval(mins => v_n) end;
      continue;
    end if;
    -- Wall-clock time to an instant. PostgreSQL reads a time that does not
    -- exist (the hour skipped in spring) with the offset before the change
    -- (02:30 Europe/Berlin on spring-forward day = 01:30 UTC = 03:30 CEST),
    -- and a time that exists twice (fall-back) as the second one, standard
    -- time (02:30 = 01:30 UTC = 02:30 CET). Either way each wall-clock slot
    -- is one instant, so it fires once.
    v_at := v_l at time zone cron_next.timezone;
    if v_at > cron_next.after then
      return v_at;
    end if;
    v_l := v_l + interval '1 minute';
  end loop;
  return null;
end
$$;

comment on function q.cron_next(q.cron_spec, text, timestamptz) is
  'The first slot of a cron schedule strictly after the given instant, matched on wall-clock time in the timezone; NULL if none within 8 years.';

revoke all on function q.cron_next(q.cron_spec, text, timestamptz) from public;
