-- q.server_began(): after a restart the server began at its postmaster
-- start; a promoted standby (its postmaster start differs from the one the
-- reaper last saw, and an old session registered after it) began when its
-- first reaper noticed.
begin;
select plan(4);

select is(q.server_began(), (select began_at from q_data.server_start), 'an unchanged server keeps its start');

-- A restart: the recorded start is older, every session registered before the new start.
delete from q_data.session where registered_at >= pg_postmaster_start_time();
update q_data.server_start set postmaster_start = '2000-01-01', began_at = '2000-01-01';
select is(q.server_began(), pg_postmaster_start_time(), 'after a restart the server began at its postmaster start');

-- A promotion: the old primary's session registered after this server (the standby) started.
update q_data.server_start set postmaster_start = '2000-01-01', began_at = '2000-01-01';
insert into q_data.session (key, pid, backend_start, registered_at) values (2000000001, 0, clock_timestamp(), clock_timestamp());
select ok(q.server_began() >= (select registered_at from q_data.session where key = 2000000001),
  'after a promotion the server began when the reaper noticed, after every session of the old primary');
select is((select postmaster_start from q_data.server_start), pg_postmaster_start_time(), 'the new postmaster start is recorded');

select * from finish();
rollback;
