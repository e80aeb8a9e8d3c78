-- q.unschedule deletes the schedule and its ledger rows; jobs it already
-- enqueued stay. An unknown name returns false.
begin;
select plan(5);
\ir ../_schedule_helpers.psql

set local pgq.schedule_now = '2026-12-01 10:00:30Z';
select q.schedule('minutely', '* * * * *', 'gone') \g /dev/null
reset pgq.schedule_now;
select pg_temp.reap_at('2026-12-01 10:01:00.1Z');
select ok(q.unschedule('minutely'), 'unschedule returns true');
select is((select count(*)::integer from q_data.schedule), 0, 'the schedule is gone');
select is((select count(*)::integer from q_data.schedule_fire), 0, 'its ledger too');
select is(cardinality(pg_temp.fired('minutely')), 1, 'the job it enqueued stays');
select ok(not q.unschedule('minutely'), 'a second unschedule returns false');

select * from finish();
rollback;
