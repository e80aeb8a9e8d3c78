create or replace function q.fire_schedules(max_jobs integer)
returns integer
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_now     timestamptz;
  v_grace   timestamptz;
  v_s       q_data.schedule;
  v_slots   timestamptz[];
  v_t       timestamptz;
  v_slot    timestamptz;
  v_job     bigint;
  v_last    bigint;
  v_fired   integer := 0;
begin
  -- (Set here, not in DECLARE: the exception handler below covers only the body.)
  v_now := q.schedule_now();
  -- A slot up to a minute late is on time (reaps run about once a second;
  -- a worker or PostgreSQL restart takes seconds) and fires under every
  -- catch-up policy. Later than that it was missed (downtime).
  v_grace := v_now - interval '1 minute';
  -- Called by q.reap under its lock, so one session at a time; SKIP LOCKED
  -- passes over a schedule that q.schedule is rewriting right now.
  for v_s in
    select * from q_data.schedule s
     where not s.paused and s.next_fire_at <= v_now
     order by s.next_fire_at
     limit max_jobs
       for update skip locked
  loop
    -- Bounded per call: the rest are due again on the next reap.
    exit when v_fired >= max_jobs;
    v_slots := '{}';
    -- Missed slots, newest first from the grace line back, at most 100.
    if v_s.next_fire_at < v_grace and v_s.catch_up = 'all' then
      v_t := v_grace;
      for i in 1..100 loop
        v_t := q.prev_slot(v_s.spec, v_s.every, v_s.timezone, v_t);
        exit when v_t is null or v_t < v_s.next_fire_at;
        v_slots := v_t || v_slots;
      end loop;
    end if;
    -- On-time slots, oldest first; v_t ends on the first slot after now.
    v_t := case when v_s.next_fire_at >= v_grace then v_s.next_fire_at
                else q.next_slot(v_s.spec, v_s.every, v_s.timezone, v_grace - interval '1 microsecond') end;
    while v_t <= v_now loop
      v_slots := v_slots || v_t;
      v_t := q.next_slot(v_s.spec, v_s.every, v_s.timezone, v_t);
    end loop;
    -- 'latest': one job stands for the downtime, unless a slot is on time.
    if cardinality(v_slots) = 0 and v_s.catch_up = 'latest' then
      v_slot := q.prev_slot(v_s.spec, v_s.every, v_s.timezone, v_grace);
      if v_slot >= v_s.next_fire_at then
        v_slots := array[v_slot];
      end if;
    end if;

    v_last := null;
    foreach v_slot in array v_slots loop
      v_job := q.fire_slot(v_s, v_slot);
      if v_job is not null then
        v_last := v_job;
        v_fired := v_fired + 1;
      end if;
    end loop;

    -- Ledger, jobs and the new next_fire_at commit together or not at all.
    update q_data.schedule s
       set next_fire_at = v_t,
           last_slot = coalesce(v_slots[cardinality(v_slots)], s.last_slot),
           last_fired_at = case when v_last is null then s.last_fired_at else clock_timestamp() end,
           last_job_id = coalesce(v_last, s.last_job_id)
     where s.id = v_s.id;
    delete from q_data.schedule_fire f
     where f.schedule_id = v_s.id and f.slot < v_now - interval '1 hour';
  end loop;
  return v_fired;
exception when others then
  -- A broken schedule must not stop the reaper from recovering lost claims:
  -- this turn's fires are rolled back (they stay due) and the reap goes on.
  raise warning 'pgq: firing schedules failed: % (SQLSTATE %)', sqlerrm, sqlstate;
  return 0;
end
$$;

comment on function q.fire_schedules(integer) is
  'Called by q.reap: enqueues one job per due slot of each due schedule (on-time slots always; missed ones by the catch-up policy), at most about max_jobs per call, and advances next_fire_at in the same transaction. The ledger q_data.schedule_fire makes a second fire of a slot impossible. Returns how many jobs it enqueued.';

revoke all on function q.fire_schedules(integer) from public;
