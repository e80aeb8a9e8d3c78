-- A slot less than a minute late is on time (a worker or PostgreSQL restart):
-- every such slot fires, whatever the catch-up policy.
begin;
select plan(3);
\ir ../_schedule_helpers.psql

set local pgq.schedule_now = '2026-12-01 10:00:00Z';
select q.schedule('tick-' || p, queue => 'ticks', every => '1 second', catch_up => p) from unnest(array['latest', 'all', 'none']) p \g /dev/null
reset pgq.schedule_now;
-- 40 seconds without a reap.
select pg_temp.reap_at('2026-12-01 10:00:40.5Z');
select is(cardinality(pg_temp.fired('tick-latest')), 40, 'latest: all 40 slots fire (10:00:01 to 10:00:40)');
select is(cardinality(pg_temp.fired('tick-all')), 40, 'all: all 40 slots fire');
select is(cardinality(pg_temp.fired('tick-none')), 40, 'none: all 40 slots fire');

select * from finish();
rollback;
