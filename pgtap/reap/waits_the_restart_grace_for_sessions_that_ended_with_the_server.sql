-- A session registered before the server began serving ended with the
-- server (restart, failover), not with its worker: q.reap leaves its claims
-- alone for q.restart_grace() so the worker can reconnect and q.adopt them,
-- then reaps them as crashed. The server's start is moved back here by
-- writing q_data.server_start (the reaper's record of it).
begin;
select plan(7);

select is(q.restart_grace(), interval '30 seconds', 'the grace is 30 seconds');
update q_data.server_start set postmaster_start = pg_postmaster_start_time(), began_at = clock_timestamp() - interval '5 seconds';
insert into q_data.session (key, pid, backend_start, registered_at)
values (2000000001, 0, now() - interval '1 hour', now() - interval '1 hour');
select q.enqueue('grace', '{}') as job_id \gset
select q.claim('grace', 1, lease => '1 hour', owner => 2000000001) \g /dev/null

select is(q.reap(), 0, 'within the grace the claim is not reaped');
select is((select state::text || ' ' || coalesce(crashes, 0) from q_data.job where id = :job_id), 'r 0', 'the job still runs, no crash spent');
select is((select count(*)::integer from q_data.session where key = 2000000001), 1, 'the session row is kept through the grace');

update q_data.server_start set began_at = clock_timestamp() - interval '31 seconds';
select is(q.reap(), 1, 'after the grace the claim is reaped');
select is((select state::text || ' ' || crashes from q_data.job where id = :job_id), 'w 1', 'waiting again, one crash spent, as for any crash');
select is((select count(*)::integer from q_data.session where key = 2000000001), 0, 'and the session row goes');

select * from finish();
rollback;
