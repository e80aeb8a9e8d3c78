-- The outcomes q.reap has not rolled up yet (q_data.tally), for the reading
-- functions (q.stats, q.throughput, q.throughput_totals). q_data.tally is
-- unlogged, and PostgreSQL refuses to even plan a query that names an
-- unlogged table on a standby ("cannot access temporary or unlogged relations
-- during recovery"): on a standby (a dashboard or exporter with --read-url)
-- this returns nothing, so those functions answer from the rolled-up figures,
-- which lag by about a second of the reaper's turn.
create or replace function q.pending_tally()
returns table (queue_id integer, outcome "char", n integer, at timestamptz)
language plpgsql
stable
set search_path = pg_catalog, pg_temp
as $$
begin
  if pg_catalog.pg_is_in_recovery() then
    return;
  end if;
  return query select t.queue_id, t.outcome, t.n, t.at from q_data.tally t;
end
$$;

comment on function q.pending_tally() is
  'The rows of q_data.tally (outcomes not rolled up yet), or none on a standby, where an unlogged table cannot be read.';

revoke all on function q.pending_tally() from public;
