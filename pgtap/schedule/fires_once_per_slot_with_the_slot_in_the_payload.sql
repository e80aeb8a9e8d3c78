-- A due slot becomes one waiting job in the schedule's queue, carrying the
-- schedule's payload plus its name and the slot (UTC); reaping again, by the
-- same or another worker, adds nothing until the next slot.
begin;
select plan(9);
\ir ../_schedule_helpers.psql
set local timezone = 'Asia/Tokyo';  -- the slot in the payload is UTC whatever the session says

set local pgq.schedule_now = '2026-12-01 02:59:00Z';
select next_fire_at as next from q.schedule('nightly', '0 3 * * *', 'maintenance', '{"task": "cleanup"}',
                                            priority => 5, max_attempts => 2) \gset
reset pgq.schedule_now;
select is(:'next'::timestamptz, '2026-12-01 03:00Z'::timestamptz, 'the first slot is the next 03:00 UTC');

select pg_temp.reap_at('2026-12-01 02:59:59Z');
select is(pg_temp.fired('nightly'), '{}'::text[], 'nothing fires before the slot');

select pg_temp.reap_at('2026-12-01 03:00:00.5Z');
select pg_temp.reap_at('2026-12-01 03:00:01Z');
select pg_temp.reap_at('2026-12-01 03:00:30Z');
select is(pg_temp.fired('nightly'), array['2026-12-01T03:00:00Z'], 'the slot fired once, however often reaped');

select is((select j.payload from q_data.job j where j.payload->>'schedule' = 'nightly'),
  '{"task": "cleanup", "schedule": "nightly", "slot": "2026-12-01T03:00:00Z"}'::jsonb,
  'the job carries the schedule''s payload, its name and the slot');
select is((select (j.state::text, j.priority::integer, j.max_attempts::integer, qq.name) from q_data.job j join q_data.queue qq on qq.id = j.queue_id),
  ('w'::text, 5, 2, 'maintenance'::text), 'it waits in the schedule''s queue with its priority and max_attempts');
select is((select s.last_job_id from q.schedules() s), (select j.id from q_data.job j), 'q.schedules shows the job it last enqueued');
select is((select (s.last_slot, s.next_fire_at) from q.schedules() s),
  ('2026-12-01 03:00Z'::timestamptz, '2026-12-02 03:00Z'::timestamptz), 'and the slot fired and the next one');
select is((select count(*)::integer from q_data.schedule_fire), 1, 'the ledger has one row for the slot');

select pg_temp.reap_at('2026-12-02 03:00:00.2Z');
select is(pg_temp.fired('nightly'), array['2026-12-01T03:00:00Z', '2026-12-02T03:00:00Z'], 'the next day''s slot fires once more');

select * from finish();
rollback;
