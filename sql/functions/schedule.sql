create or replace function q.schedule(
  name          text,
  cron          text     default null,
  queue         text     default null,
  payload       jsonb    default '{}',
  timezone      text     default 'UTC',
  priority      integer  default 0,
  max_attempts  integer  default null,
  catch_up      text     default 'latest',
  every         interval default null
)
returns q.schedule_info
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
-- An admin call never waits long behind an open transaction (a worker's, a
-- producer's): 55P03 after 2 s, naming the likely holders (q.lock_wait_failed).
set lock_timeout = '2s'
as $$
#variable_conflict use_column
declare
  v_now       timestamptz := q.schedule_now();
  v_spec      q.cron_spec;
  v_old       q_data.schedule;
  v_queue_id  integer;
  v_next      timestamptz;
  v_gap       integer;
begin
  -- Everything is checked before anything is written.
  if schedule.name is null then
    raise exception 'schedule name must not be null' using errcode = '22004';
  end if;
  if char_length(schedule.name) not between 1 and 128 or schedule.name ~ '[[:cntrl:]]' then
    raise exception 'invalid schedule name %: it must be 1 to 128 characters without control characters',
      quote_literal(left(schedule.name, 200))
      using errcode = '22023';
  end if;
  if schedule.queue is null then
    raise exception 'queue must not be null: name the queue the schedule enqueues into' using errcode = '22004';
  end if;
  perform q.check_queue_name(schedule.queue);
  if (schedule.cron is null) = (schedule.every is null) then
    raise exception 'give exactly one of cron (e.g. ''0 3 * * *'') and every (e.g. ''30 seconds'')'
      using errcode = '22023';
  end if;
  select * into v_old from q_data.schedule s where s.name = schedule.name;
  if schedule.cron is not null then
    v_spec := q.cron_parse(schedule.cron);
    -- A spec that matches days years apart ('0 0 29 2 */7': Feb 29 on a
    -- Sunday, 28 to 40 years apart) would fire once and then stop without a
    -- word, q.cron_next searching 8 years ahead: it is refused here. Asked
    -- only of a cron text new for this schedule that restricts its days.
    if not (v_spec.days_star and v_spec.weekdays_star) and schedule.cron is distinct from v_old.cron then
      v_gap := q.cron_longest_gap(v_spec);
      if v_gap is null then
        raise exception 'cron expression "%" never fires (no day matches it, e.g. February 30)', schedule.cron
          using errcode = '22023';
      elsif v_gap > 2921 then
        raise exception 'cron expression "%" fires on days up to % years apart; pgq needs a slot at least every 8 years',
          schedule.cron, round(v_gap / 365.2425, 1)
          using errcode = '22023';
      end if;
    end if;
  elsif schedule.every < interval '1 second' or schedule.every > interval '366 days'
     or date_part('month', schedule.every) <> 0 or date_part('year', schedule.every) <> 0
     or extract(epoch from schedule.every) <> trunc(extract(epoch from schedule.every)) then
    raise exception 'every must be whole seconds from 1 second to 366 days, without months or years (use cron for calendar times), got %',
      schedule.every
      using errcode = '22023';
  end if;
  if schedule.timezone is null then
    raise exception 'timezone must not be null (the default is UTC)' using errcode = '22004';
  end if;
  -- pg_timezone_names reads the zone files (about 20 ms), so it is asked only
  -- about a zone that is new for this schedule: a start-up sync that writes
  -- the same definitions again stays cheap.
  if schedule.timezone <> 'UTC' and schedule.timezone is distinct from v_old.timezone
     and not exists (select from pg_catalog.pg_timezone_names z where z.name = schedule.timezone) then
    raise exception 'unknown time zone %: use an IANA name such as Europe/Berlin or UTC', quote_literal(left(schedule.timezone, 100))
      using errcode = '22023';
  end if;
  -- Each job's payload is the schedule's plus "schedule" and "slot" (a slot
  -- is always 20 characters): the size cap counts them.
  perform q.check_job_options(
    schedule.payload || jsonb_build_object('schedule', schedule.name, 'slot', '2000-01-01T00:00:00Z'),
    schedule.priority, schedule.max_attempts);
  if jsonb_typeof(schedule.payload) <> 'object' then
    raise exception 'a schedule''s payload must be a JSON object (each job gets it with "schedule" and "slot" added), got %',
      jsonb_typeof(schedule.payload)
      using errcode = '22023';
  end if;
  if schedule.payload ? 'schedule' or schedule.payload ? 'slot' then
    raise exception 'a schedule''s payload must not have the keys "schedule" or "slot": each job gets them (the schedule''s name and the slot time)'
      using errcode = '22023';
  end if;
  if schedule.catch_up is null or schedule.catch_up not in ('latest', 'all', 'none') then
    raise exception 'catch_up must be latest, all or none, got %', coalesce(quote_literal(schedule.catch_up), 'NULL')
      using errcode = '22023';
  end if;
  v_next := q.next_slot(v_spec, schedule.every, schedule.timezone, greatest(v_now, v_old.last_slot));
  if v_next is null then
    raise exception 'cron expression "%" never fires (no matching day in 8 years, e.g. February 30)', schedule.cron
      using errcode = '22023';
  end if;

  v_queue_id := (q.ensure_queue(schedule.queue)).id;
  loop
    if v_old.id is null then
      insert into q_data.schedule as s (name, queue_id, cron, every, spec, timezone, payload, priority, max_attempts,
                                   catch_up, next_fire_at, created_at, updated_at)
      values (schedule.name, v_queue_id, schedule.cron, schedule.every, v_spec, schedule.timezone, schedule.payload,
              schedule.priority, schedule.max_attempts, schedule.catch_up, v_next, v_now, v_now)
      on conflict (name) do nothing;
      exit when found;
      -- Created concurrently (two workers syncing at start-up): replace it.
    end if;
    select * into v_old from q_data.schedule s where s.name = schedule.name for update;
    if found then
      -- A replace that keeps the timing keeps next_fire_at, so slots missed
      -- while every worker was down are still caught up after the start-up
      -- sync. New timing starts after the last fired slot: never a re-fire.
      -- Writing the same definition again changes nothing (not even updated_at).
      update q_data.schedule s
         set queue_id = v_queue_id, cron = schedule.cron, every = schedule.every, spec = v_spec,
             timezone = schedule.timezone, payload = schedule.payload, priority = schedule.priority,
             max_attempts = schedule.max_attempts, catch_up = schedule.catch_up,
             next_fire_at = case when (s.cron, s.every, s.timezone) is not distinct from
                                      (schedule.cron, schedule.every, schedule.timezone)
                                 then s.next_fire_at else v_next end,
             updated_at = v_now
       where s.id = v_old.id
         and (s.queue_id, s.cron, s.every, s.timezone, s.payload, s.priority, s.max_attempts, s.catch_up)
             is distinct from
             (v_queue_id, schedule.cron, schedule.every, schedule.timezone, schedule.payload,
              schedule.priority::smallint, schedule.max_attempts::smallint, schedule.catch_up);
      exit;
    end if;
    -- Deleted concurrently: create it.
    v_old := null;
  end loop;
  return (select x from q.schedules(schedule.name) x);
exception when lock_not_available then
  perform q.lock_wait_failed('q.schedule', format('schedule %L', schedule.name));
end
$$;

comment on function q.schedule(text, text, text, jsonb, text, integer, integer, text, interval) is
  'Creates or replaces a schedule: cron (5 fields or a macro, in timezone) or every (an interval), enqueuing payload plus {"schedule", "slot"} into queue once per slot. catch_up says what happens to slots missed while nothing reaped (latest, all, none). Replacing with the same timing keeps the next slot; identical definitions write nothing. Raises 22004/22023/54000 for bad input, writing nothing.';

revoke all on function q.schedule(text, text, text, jsonb, text, integer, integer, text, interval) from public;
grant execute on function q.schedule(text, text, text, jsonb, text, integer, integer, text, interval) to pgq_admin;
