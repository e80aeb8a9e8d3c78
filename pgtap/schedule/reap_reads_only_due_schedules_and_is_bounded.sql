-- A reap turn finds due schedules through schedule_due_idx (with thousands
-- of schedules and none due it reads no row), and fires about max_jobs per
-- call; the rest fire on the next turn.
begin;
select plan(4);
\ir ../_helpers.psql
\ir ../_schedule_helpers.psql

set local pgq.schedule_now = '2026-12-01 10:00:30Z';
select count(q.schedule('s' || i, '* * * * *', 'bounded')) from generate_series(1, 30) i \g /dev/null
reset pgq.schedule_now;
set local enable_seqscan = off;
select matches(pg_temp.plan_of($$ select * from q_data.schedule s where not s.paused and s.next_fire_at <= now()
                                   order by s.next_fire_at limit 10 for update skip locked $$),
  'schedule_due_idx', 'due schedules are read through schedule_due_idx');
reset enable_seqscan;

set local pgq.schedule_now = '2026-12-01 10:01:00.1Z';
select q.reap(max_jobs => 10) \g /dev/null
select is((select count(*)::integer from q_data.job), 10, 'one reap with max_jobs 10 fires 10 schedules');
select q.reap(max_jobs => 10) \g /dev/null
select q.reap(max_jobs => 10) \g /dev/null
select is((select count(*)::integer from q_data.job), 30, 'the next turns fire the rest');
select q.reap(max_jobs => 10) \g /dev/null
select is((select count(*)::integer from q_data.job), 30, 'and no slot twice');

select * from finish();
rollback;
