-- A rollback undoes set_config but not a session-level advisory lock. When
-- the transaction of a session's first claim rolls back (a worker polling
-- with autocommit off and rolling back when the queue is empty, or a claim
-- that failed), the next call must reuse the key the session still holds,
-- not take a new one each time: every new key is a session lock that stays
-- in the server's shared lock table until the connection closes, and enough
-- of them exhaust it ("out of shared memory") for the whole cluster.
begin;
select plan(3);

select q.configure('idle') \g /dev/null

savepoint first_poll;
select q.session_key() as first_key \gset
rollback to savepoint first_poll;

savepoint second_poll;
select count(*) from q.claim('idle') \g /dev/null
rollback to savepoint second_poll;

select is(q.session_key(), :first_key, 'after rolled-back first calls the session keeps its key');
select is((select count(*)::integer from pg_locks l
            where l.locktype = 'advisory' and l.pid = pg_backend_pid() and l.objsubid = 2
              and l.classid::bigint = q.lock_space()::bigint and l.objid <> 0),
  1, 'the session holds exactly one session-key lock');
select is(current_setting('pgq.session_key')::integer, :first_key, 'pgq.session_key names the held key again');

select * from finish();
rollback;
