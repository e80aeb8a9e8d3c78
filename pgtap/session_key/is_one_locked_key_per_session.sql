-- q.session_key() takes a key on first use, holds its advisory lock for the
-- life of the connection, and returns the same key every time after.
begin;
select plan(4);

select q.session_key() as first_key \gset
select cmp_ok(:first_key, '>=', 1, 'a session key is a positive integer (0 means "no owner")');
select is(q.session_key(), :first_key, 'the same session gets the same key again');
select is(current_setting('pgq.session_key')::integer, :first_key, 'the key is remembered in pgq.session_key');
select is((select count(*)::integer from pg_locks l
            where l.locktype = 'advisory' and l.pid = pg_backend_pid() and l.granted and l.objsubid = 2
              and l.classid::bigint = q.lock_space()::bigint and l.objid::bigint = :first_key),
  1, 'the session holds the advisory lock (lock_space, key)');

select * from finish();
rollback;
