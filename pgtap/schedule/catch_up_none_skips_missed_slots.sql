-- catch_up => 'none': slots missed by more than a minute are skipped; the
-- schedule fires again from its next slot.
begin;
select plan(3);
\ir ../_schedule_helpers.psql

set local pgq.schedule_now = '2026-12-01 02:00Z';
select q.schedule('daily', '0 3 * * *', 'catchup', catch_up => 'none') \g /dev/null
reset pgq.schedule_now;
select pg_temp.reap_at('2026-12-08 12:00Z');
select is(pg_temp.fired('daily'), '{}'::text[], 'the missed week fires nothing');
select is((select next_fire_at from q_data.schedule), '2026-12-09 03:00Z'::timestamptz, 'the next slot is tomorrow''s');
select pg_temp.reap_at('2026-12-09 03:00:00.3Z');
select is(pg_temp.fired('daily'), array['2026-12-09T03:00:00Z'], 'which fires');

select * from finish();
rollback;
