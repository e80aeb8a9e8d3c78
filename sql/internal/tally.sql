-- The throughput hook of the hot path: one insert, no update, no lock another
-- session waits for. PL/pgSQL, not SQL: a SQL function's body is planned on
-- every call (62-90 µs a call, measured); PL/pgSQL keeps the plan (21-24 µs,
-- 15 of them the insert). One job (q.complete, q.fail, q.finish) takes the
-- plain VALUES insert; a batch groups by queue. Measured beside the revision
-- before it in `make bench` (bench/measures/observe.py).
create or replace function q.tally(queue_ids integer[], outcome "char")
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
begin
  if cardinality(tally.queue_ids) = 1 then
    if tally.queue_ids[1] is not null then
      insert into q_data.tally (queue_id, outcome, n) values (tally.queue_ids[1], tally.outcome, 1);
    end if;
  elsif cardinality(tally.queue_ids) > 1 then
    insert into q_data.tally (queue_id, outcome, n)
    select t.queue_id, tally.outcome, count(*)
      from unnest(tally.queue_ids) as t(queue_id)
     where t.queue_id is not null
     group by t.queue_id;
  end if;
end
$$;

comment on function q.tally(integer[], "char") is
  'Records outcomes (c completed, f failed and will retry, d dead) of the given jobs'' queues (one element per job) in q_data.tally, in the caller''s transaction; q.reap rolls them up into q_data.throughput.';

revoke all on function q.tally(integer[], "char") from public;
