-- The throughput hook of the hot path: one insert, no update, no lock another
-- session waits for. Measured beside a no-op body in `make bench`
-- (bench/measures/observe.py, "hot path with and without the tally").
create or replace function q.tally(queue_ids integer[], outcome "char")
returns void
language sql
volatile
set search_path = pg_catalog, pg_temp
as $$
  insert into q.tally (queue_id, outcome, n)
  select t.queue_id, tally.outcome, count(*)
    from unnest(tally.queue_ids) as t(queue_id)
   where t.queue_id is not null
   group by t.queue_id
$$;

comment on function q.tally(integer[], "char") is
  'Records outcomes (c completed, f failed and will retry, d dead) of the given jobs'' queues (one element per job) in q.tally, in the caller''s transaction; q.reap rolls them up into q.throughput.';

revoke all on function q.tally(integer[], "char") from public;
