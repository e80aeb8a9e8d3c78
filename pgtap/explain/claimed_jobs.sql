-- A running job names its claim: a live session (its pid, from q_data.session
-- and pg_stat_activity), a lease-only claim, a session that is gone (the
-- next reap returns it), a lease that ran out.
begin;
select plan(9);
\ir ../_helpers.psql
create extension if not exists dblink;

select count(*) from q.enqueue_many('c', '[1, 2, 3, 4]') \g /dev/null

select id as mine_id from q.claim('c', 1, owner => q.session_key()) \gset
select results_eq(format('select code, (detail ->> ''pid'')::integer from q.explain(%s)', :mine_id),
  $$ values ('claimed_live', pg_backend_pid()) $$, 'claimed by this session: claimed_live with its pid');

select dblink_connect('peer', pg_temp.peer_conninfo()) \g /dev/null
select k as peer_key from dblink('peer', 'select q.session_key()') as t(k integer) \gset
select p as peer_pid from dblink('peer', 'select pg_backend_pid()') as t(p integer) \gset
select id as peer_job from q.claim('c', 1, owner => :peer_key) \gset
-- pg_stat_activity is read once per transaction (before the peer existed): read it afresh.
select pg_stat_clear_snapshot() \g /dev/null
select results_eq(format('select code, (detail ->> ''pid'')::integer, detail ->> ''application_name'' from q.explain(%s)', :peer_job),
  format('values (%L, %s, %L)', 'claimed_live', :peer_pid, 'pgtap_peer'),
  'claimed for another live session: its pid and application name');
select matches((select message from q.explain(:peer_job)), format('^running: claimed by a live session \(pid %s, ''pgtap_peer''', :peer_pid),
  'in plain words');
select dblink_disconnect('peer') \g /dev/null
-- The backend exits a moment after its client hangs up; wait (bounded) until it is gone.
create function pg_temp.backend_gone(p integer) returns boolean language plpgsql as $$
begin
  for i in 1 .. 200 loop
    perform pg_stat_clear_snapshot();
    if not exists (select from pg_stat_activity a where a.pid = p) then
      return true;
    end if;
    perform pg_sleep(0.05);
  end loop;
  return false;
end
$$;
select ok(pg_temp.backend_gone(:peer_pid), '(the peer''s backend ended within 10 seconds of its disconnect)');
select results_eq(format('select code from q.explain(%s)', :peer_job), $$ values ('claimed_gone') $$,
  'its claim, now that the session is gone: claimed_gone');
select matches((select message from q.explain(:peer_job)), 'the next q.reap returns it to the queue \(crash 1 of 3\)',
  'it says what happens next and what it costs');

select id as lease_job from q.claim('c', 1, owner => 0, lease => interval '1 hour') \gset
select results_eq(format('select code from q.explain(%s)', :lease_job), $$ values ('claimed_lease') $$,
  'a lease-only claim: claimed_lease');
update q_data.job set lease_until = now() - interval '1 second' where id = :lease_job;
select results_eq(format('select code from q.explain(%s)', :lease_job), $$ values ('claim_expired') $$,
  'its lease ran out: claim_expired');
update q_data.job set lease_until = now() - interval '1 second' where id = :mine_id;
select results_eq(format('select code from q.explain(%s) order by code', :mine_id), $$ values ('claim_expired'), ('claimed_live') $$,
  'a live session whose lease ran out (no heartbeat): both reasons');

select * from finish();
rollback;
