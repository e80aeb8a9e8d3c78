-- A schedule row another session holds locked (q.schedule rewriting it, or
-- anyone with a lock on the row) does not make the reaper wait: it fires
-- the other due schedules at once (FOR UPDATE SKIP LOCKED) and the locked
-- one on a later turn. The peer session (dblink) needs a committed schedule
-- to lock, so it creates one; it is deleted after the rollback (while this
-- transaction runs, it holds that row itself once the reap fired it).
begin;
select plan(4);
\ir ../_helpers.psql
create extension if not exists dblink;

-- (The peer turns the test clock on and commits before this transaction
-- writes the switch's row through the schedule helpers.)
select dblink_connect('peer', pg_temp.peer_conninfo()) \g /dev/null
select * from dblink('peer', $$ select q.allow_test_clock(true); set pgq.schedule_now = '2026-12-01 10:00:30Z';
                               select q.schedule('peer-locked', '* * * * *', 'peer-queue') is not null $$)
  as t(ok boolean) \g /dev/null
\ir ../_schedule_helpers.psql
set local pgq.schedule_now = '2026-12-01 10:00:30Z';
select q.schedule('mine', '* * * * *', 'peer-queue') \g /dev/null
reset pgq.schedule_now;

select * from dblink('peer', 'begin') as t(x text) \g /dev/null
select * from dblink('peer', $$ select 1 from q_data.schedule where name = 'peer-locked' for update $$) as t(x integer) \g /dev/null

set local lock_timeout = '2s';
select lives_ok($$ select pg_temp.reap_at('2026-12-01 10:01:00.1Z') $$, 'the reap does not wait for the locked row');
select is(pg_temp.fired('mine'), array['2026-12-01T10:01:00Z'], 'the unlocked schedule fired');
select is(pg_temp.fired('peer-locked'), '{}'::text[], 'the locked one was skipped');

select * from dblink('peer', 'rollback') as t(x text) \g /dev/null
select pg_temp.reap_at('2026-12-01 10:01:00.6Z');
select is(pg_temp.fired('peer-locked'), array['2026-12-01T10:01:00Z'], 'unlocked, it fires on the next turn');

select dblink_disconnect('peer') \g /dev/null

select * from finish();
rollback;

-- What the peer committed.
select q.unschedule('peer-locked') \g /dev/null
select q.allow_test_clock(false) \g /dev/null
delete from q_data.queue qq where qq.name = 'peer-queue';
