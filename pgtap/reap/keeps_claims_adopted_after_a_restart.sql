-- A worker that reconnects within the grace and adopts its claims keeps
-- them after the grace: they name its new, live session.
begin;
select plan(3);

update q_data.server_start set postmaster_start = pg_postmaster_start_time(), began_at = clock_timestamp() - interval '5 seconds';
insert into q_data.session (key, pid, backend_start, registered_at)
values (2000000001, 0, now() - interval '1 hour', now() - interval '1 hour');
select q.enqueue('grace', '{}') as job_id \gset
select token from q.claim('grace', 1, lease => '1 hour', owner => 2000000001) \gset
select q.session_key() as new_key \gset

select is(array(select * from q.adopt(array[:job_id]::bigint[], array[:'token']::uuid[], :new_key)), array[:job_id]::bigint[],
  'the claim is adopted within the grace');
update q_data.server_start set began_at = clock_timestamp() - interval '31 seconds';
select is(q.reap(), 0, 'after the grace nothing is reaped');
select is((select state::text || ' ' || coalesce(crashes, 0) from q_data.job where id = :job_id), 'r 0', 'the adopted job still runs');

select * from finish();
rollback;
