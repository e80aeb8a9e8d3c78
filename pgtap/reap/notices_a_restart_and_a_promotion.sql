-- q.server_began(): after a restart the server began at its postmaster
-- start, also when sessions registered since; only a promoted standby (a
-- session the old primary registered after this postmaster started, within
-- what it replayed) began when its first reaper noticed.
begin;
select plan(4);

select is(q.server_began(), (select began_at from q_data.server_start), 'an unchanged server keeps its start');

-- A restart: the recorded start is older, every session registered before the new start.
delete from q_data.session where registered_at >= pg_postmaster_start_time();
update q_data.server_start set postmaster_start = '2000-01-01', began_at = '2000-01-01';
select is(q.server_began(), pg_postmaster_start_time(), 'after a restart the server began at its postmaster start');

-- A restart (or a database copied from a template made under an earlier
-- postmaster) where sessions registered after the start: they have not ended
-- with the server, so it still began at its postmaster start. (A promotion,
-- which needs sessions replayed from an old primary, pg_last_xact_replay_timestamp()
-- not NULL, is tested with a real standby: tests/reliability/test_failover.py.)
update q_data.server_start set postmaster_start = '2000-01-01', began_at = '2000-01-01';
insert into q_data.session (key, pid, backend_start, registered_at) values (2000000001, 0, clock_timestamp(), clock_timestamp());
select is(q.server_began(), pg_postmaster_start_time(),
  'sessions registered after the postmaster start on a server that replayed nothing: still a restart');
select is((select postmaster_start from q_data.server_start), pg_postmaster_start_time(), 'the new postmaster start is recorded');

select * from finish();
rollback;
