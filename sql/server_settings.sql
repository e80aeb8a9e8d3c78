-- The server-wide half of pgq's autovacuum tuning. The per-table half is in
-- the migrations (q_data.job's storage parameters); this half needs a superuser
-- and applies to the whole cluster, so pgq does not run it for you.
--
--   psql "$DATABASE_URL" -f sql/server_settings.sql
--
-- The embedded PostgreSQL of `make demo` / `make test` sets the same value in
-- its postgresql.conf (scripts/embedded-pg).
--
-- Why: the autovacuum launcher wakes every autovacuum_naptime (default 1 min).
-- A queue table at 10,000 claims/s piles up dead index entries faster than
-- that; the claim-rate article measured 16,141 -> 5,770 claims/s within one
-- minute with stock settings and a flat 15,400-16,700/s with these
-- (design.md#autovacuum-is-told-the-table-is-a-queue).
alter system set autovacuum_naptime = '5s';
select pg_reload_conf();
