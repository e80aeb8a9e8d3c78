-- q.session_key() registers a key on first use (a row of q_data.session naming
-- this backend's pid and backend_start), returns the same key every time
-- after, and takes no advisory lock (0002's keys were advisory locks any
-- login role could take, hold or read).
begin;
select plan(5);

select q.session_key() as first_key \gset
select cmp_ok(:first_key, '>=', 1, 'a session key is a positive integer (0 means "no owner")');
select is(q.session_key(), :first_key, 'the same session gets the same key again');
select is((select s.pid from q_data.session s where s.key = :first_key), pg_backend_pid(),
  'the key''s row names this backend''s pid');
select is((select s.backend_start from q_data.session s where s.key = :first_key),
          (select a.backend_start from pg_stat_activity a where a.pid = pg_backend_pid()),
  'and its backend_start (a re-used pid is a different session)');
select is((select count(*)::integer from pg_locks l where l.locktype = 'advisory' and l.pid = pg_backend_pid()),
  0, 'the session holds no advisory lock');

select * from finish();
rollback;
