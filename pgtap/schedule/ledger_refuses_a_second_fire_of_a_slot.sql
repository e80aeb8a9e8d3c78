-- The exactly-once rule lives in the database: q_data.schedule_fire has the
-- primary key (schedule_id, slot). Even if next_fire_at were put back to a
-- slot already fired (what a lost update or a bug would do), the reap
-- enqueues nothing for it and moves on.
begin;
select plan(4);
\ir ../_schedule_helpers.psql

set local pgq.schedule_now = '2026-12-01 10:00:30Z';
select q.schedule('minutely', '* * * * *', 'ledger') \g /dev/null
reset pgq.schedule_now;
select pg_temp.reap_at('2026-12-01 10:01:00.1Z');
select pg_temp.reap_at('2026-12-01 10:02:00.1Z');
select is(pg_temp.fired('minutely'), array['2026-12-01T10:01:00Z', '2026-12-01T10:02:00Z'], 'two slots, two jobs');

update q_data.schedule set next_fire_at = '2026-12-01 10:01:00Z' where name = 'minutely';
select pg_temp.reap_at('2026-12-01 10:02:30Z');
select is(pg_temp.fired('minutely'), array['2026-12-01T10:01:00Z', '2026-12-01T10:02:00Z'],
  'slots put back in the schedule are not fired again');
select is((select next_fire_at from q_data.schedule), '2026-12-01 10:03Z'::timestamptz, 'the schedule moved on to the next slot');
select throws_ok($$ insert into q_data.schedule_fire select schedule_id, slot, 0, now() from q_data.schedule_fire limit 1 $$,
  '23505', null, 'the ledger itself refuses a second row for a slot');

select * from finish();
rollback;
