-- Any login role can take advisory locks and read pg_locks. In 0002 the
-- next session keys were advisory locks (lock_space, key) taken with a
-- blocking pg_advisory_lock, so a peer holding the next keys made every new
-- session's q.session_key() (and first q.claim) wait forever. Here a peer
-- (dblink) holds keys 1 to 2000, and the calls must return under a 2 s timeout.
begin;
select plan(2);
\ir ../_helpers.psql
create extension if not exists dblink;

select dblink_connect('squatter', pg_temp.peer_conninfo()) \g /dev/null
select * from dblink('squatter', $$
  select count(pg_advisory_lock(1885827328, k))::integer
    from generate_series(1, 2000) k $$) as t(n integer) \g /dev/null

set local statement_timeout = '2s';
select lives_ok($$ select q.session_key() $$,
  'q.session_key() returns while another session holds the next keys');
select lives_ok($$ select count(*) from q.claim('anything', 1, owner => q.session_key()) $$,
  'a first claim with that key does not wait either');
reset statement_timeout;

select dblink_disconnect('squatter') \g /dev/null
select * from finish();
rollback;
