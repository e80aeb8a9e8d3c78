-- The restart grace never outlives a lease: a claim whose lease ran out is
-- reaped even while its session, ended with the server, is in its grace.
begin;
select plan(2);

update q_data.server_start set postmaster_start = pg_postmaster_start_time(), began_at = clock_timestamp() - interval '5 seconds';
insert into q_data.session (key, pid, backend_start, registered_at)
values (2000000001, 0, now() - interval '1 hour', now() - interval '1 hour');
select q.enqueue('grace', '{}') as job_id \gset
select q.claim('grace', 1, lease => '1 hour', owner => 2000000001) \g /dev/null
update q_data.job set lease_until = clock_timestamp() - interval '1 second' where id = :job_id;

select is(q.reap(), 1, 'the expired lease is reaped within the grace');
select is((select state::text || ' ' || crashes from q_data.job where id = :job_id), 'w 1', 'waiting again, one crash spent');

select * from finish();
rollback;
