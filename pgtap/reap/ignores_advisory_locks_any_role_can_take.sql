-- Any login role can take advisory locks. In 0002 the reaper's turn was the
-- advisory lock (1885827328, 0): a session holding it made every q.reap()
-- return 0, so no crashed worker's job came back on any queue. Here a peer
-- (dblink) holds that lock and the session keys 1 to 100, and reap still
-- returns the expired claim.
begin;
select plan(2);
\ir ../_helpers.psql
create extension if not exists dblink;

select q.enqueue('turn', '{}') as job_id \gset
select q.claim('turn', 1, lease => '1 millisecond', owner => 0) \g /dev/null
select pg_sleep(0.05) \g /dev/null

select dblink_connect('squatter', pg_temp.peer_conninfo()) \g /dev/null
select * from dblink('squatter', $$
  select count(pg_advisory_lock(1885827328, k))::integer from generate_series(-1, 100) k $$) as t(n integer) \g /dev/null

select is(q.reap(), 1, 'reap returns the expired claim while another session holds pgq''s old advisory locks');
select is((select state::text from q_data.job where id = :job_id), 'w', 'the job is waiting again');

select dblink_disconnect('squatter') \g /dev/null
select * from finish();
rollback;
