-- A claim whose owner session is alive is left alone, whatever the
-- reaper: this session's own claims, and another live connection's (a peer
-- over dblink that took a key with q.session_key()). When the peer
-- disconnects, its backend exits and the next reap returns the job.
begin;
select plan(7);
\ir ../_helpers.psql
create extension if not exists dblink;

select q.enqueue('live', '{"n": "mine"}') as mine_id \gset
select q.enqueue('live', '{"n": "peer"}') as peer_id \gset
select id as claimed_mine from q.claim('live', 1, lease => '1 hour', owner => q.session_key()) \gset

select dblink_connect('peer', pg_temp.peer_conninfo()) \g /dev/null
select k as peer_key, p as peer_pid from dblink('peer', 'select q.session_key(), pg_backend_pid()') as t(k integer, p integer) \gset
select id as claimed_peer from q.claim('live', 1, lease => '1 hour', owner => :peer_key) \gset
select is(:claimed_peer::bigint, :peer_id::bigint, '(the second job is claimed on behalf of the peer''s key)');

select is(q.reap(), 0, 'reap returns nothing while both sessions are alive');
select is((select owner from q_data.job where id = :mine_id), q.session_key(), '(my claim carries my own key)');
select is((select count(*)::integer from q_data.job where state = 'r'), 2, 'both claims are still running');

select dblink_disconnect('peer') \g /dev/null
-- The backend exits a moment after its client hangs up; wait (bounded) for it to go.
create function pg_temp.backend_gone(pid integer) returns boolean language plpgsql as $$
begin
  for i in 1 .. 200 loop
    perform pg_stat_clear_snapshot();
    if not exists (select from pg_stat_activity a where a.pid = backend_gone.pid) then
      return true;
    end if;
    perform pg_sleep(0.05);
  end loop;
  return false;
end
$$;
select ok(pg_temp.backend_gone(:peer_pid), '(the peer''s backend ended within 10 seconds of its disconnect)');
select is(q.reap(), 1, 'after the peer is gone, reap returns its claim');
select is((select state::text || ' ' || coalesce(owner::text, 'none') from q_data.job where id = :mine_id), 'r ' || q.session_key(),
  'my own claim is still mine');

select * from finish();
rollback;
