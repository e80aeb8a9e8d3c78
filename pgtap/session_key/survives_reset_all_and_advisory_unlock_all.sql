-- The caller's own lock and settings handling cannot make a live session
-- look gone. In 0002, after pg_advisory_unlock_all() (a pool's reset hook)
-- the key's lock was free, and after RESET ALL a reap on the same
-- connection took its own re-entrant lock: either way the live job was
-- reaped and handed to a second worker. (DISCARD ALL cannot run inside a
-- transaction: tests/core/test_session_liveness.py covers it.)
begin;
select plan(4);

select q.session_key() as key \gset
select q.enqueue('mine', '{}') as job_id \gset
select count(*) from q.claim('mine', 1, lease => '1 hour', owner => :key) \g /dev/null

select pg_advisory_unlock_all();
reset all;

select is(q.reap(), 0, 'reap on the claiming connection reaps nothing');
select is((select state::text || ' ' || owner from q_data.job where id = :job_id), 'r ' || :key,
  'the job is still running, owned by the key');
select is(q.session_key(), :key, 'after pg_advisory_unlock_all() and RESET ALL the session has the same key');
select is((select count(*)::integer from q_data.job where state = 'r'), 1, 'one job running');

select * from finish();
rollback;
