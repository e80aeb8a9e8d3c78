create or replace function q.cron_longest_gap(spec q.cron_spec)
returns integer
language sql
immutable
set search_path = pg_catalog, pg_temp
as $$
  -- The Gregorian calendar repeats its dates and weekdays every 400 years
  -- (146,097 days), so the days a spec matches in one such cycle, with the
  -- wrap-around from the last back to the first, hold every gap it will ever
  -- have. About 50-100 ms; q.schedule asks only for a cron text that is new
  -- for the schedule and restricts its days.
  with days as (
    select d::date as d
      from generate_series(timestamp '2001-01-01', timestamp '2400-12-31', interval '1 day') d
     where extract(month from d)::integer = any(cron_longest_gap.spec.months)
       -- Classic cron, as q.cron_next: both day fields restricted = either matches.
       and case when cron_longest_gap.spec.days_star or cron_longest_gap.spec.weekdays_star
                then extract(day from d)::integer = any(cron_longest_gap.spec.days)
                     and extract(dow from d)::integer = any(cron_longest_gap.spec.weekdays)
                else extract(day from d)::integer = any(cron_longest_gap.spec.days)
                     or extract(dow from d)::integer = any(cron_longest_gap.spec.weekdays) end
  )
  select max(g.gap)
    from (select x.d - lag(x.d) over (order by x.d) as gap from days x
          union all
          select min(x.d) + 146097 - max(x.d) from days x having count(*) > 0) g
$$;

comment on function q.cron_longest_gap(q.cron_spec) is
  'The longest gap, in days, between two days a cron spec matches (over the 400-year Gregorian cycle); NULL if it matches no day. q.schedule refuses a spec whose gap is longer than q.cron_next searches (8 years).';

revoke all on function q.cron_longest_gap(q.cron_spec) from public;
