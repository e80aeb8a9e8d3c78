create or replace function q.prev_slot(spec q.cron_spec, every interval, timezone text, before timestamptz)
returns timestamptz
language plpgsql
stable
set search_path = pg_catalog, pg_temp
as $$
declare
  v_len numeric := extract(epoch from prev_slot.every);
begin
  if prev_slot.every is null then
    return q.cron_prev(prev_slot.spec, prev_slot.timezone, prev_slot.before);
  end if;
  return timestamptz 'epoch'
         + (ceil(extract(epoch from prev_slot.before) / v_len) - 1) * v_len * interval '1 second';
end
$$;

comment on function q.prev_slot(q.cron_spec, interval, text, timestamptz) is
  'The last slot strictly before the given instant (the mirror of q.next_slot).';

revoke all on function q.prev_slot(q.cron_spec, interval, text, timestamptz) from public;
