create or replace function q.next_slot(spec q.cron_spec, every interval, timezone text, after timestamptz)
returns timestamptz
language plpgsql
stable
set search_path = pg_catalog, pg_temp
as $$
declare
  v_len numeric := extract(epoch from next_slot.every);
begin
  if next_slot.every is null then
    return q.cron_next(next_slot.spec, next_slot.timezone, next_slot.after);
  end if;
  -- Interval slots are whole multiples of the length since the Unix epoch
  -- (numeric, so microseconds are exact): replacing a schedule or restarting
  -- every worker never shifts them, and "every 1 second" fires on whole seconds.
  return timestamptz 'epoch'
         + (floor(extract(epoch from next_slot.after) / v_len) + 1) * v_len * interval '1 second';
end
$$;

comment on function q.next_slot(q.cron_spec, interval, text, timestamptz) is
  'The first slot strictly after the given instant: q.cron_next for a cron schedule, the next whole multiple of every since 1970-01-01 UTC for an interval one.';

revoke all on function q.next_slot(q.cron_spec, interval, text, timestamptz) from public;
