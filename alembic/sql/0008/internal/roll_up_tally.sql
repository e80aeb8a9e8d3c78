create or replace function q.roll_up_tally(max_rows integer)
returns integer
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_moved integer;
begin
  -- Called by q.reap under its lock, so one session at a time writes
  -- q_data.throughput and q_data.throughput_total: their rows are never contended.
  with moved as (
    delete from q_data.tally t
     where t.ctid = any(array(select x.ctid from q_data.tally x limit roll_up_tally.max_rows))
    returning t.queue_id, t.outcome, t.n, t.at
  ), per_minute as (
    select m.queue_id, date_trunc('minute', m.at) as minute,
           coalesce(sum(m.n) filter (where m.outcome = 'c'), 0) as completed,
           coalesce(sum(m.n) filter (where m.outcome = 'f'), 0) as failed,
           coalesce(sum(m.n) filter (where m.outcome = 'd'), 0) as dead,
           min(m.at) as first_at
      from moved m
     group by 1, 2
  ), buckets as (
    insert into q_data.throughput as t (queue_id, minute, completed, failed, dead)
    select p.queue_id, p.minute, p.completed, p.failed, p.dead from per_minute p
    on conflict (queue_id, minute) do update
       set completed = t.completed + excluded.completed,
           failed = t.failed + excluded.failed,
           dead = t.dead + excluded.dead
    returning 1
  ), totals as (
    insert into q_data.throughput_total as t (queue_id, completed, failed, dead, since)
    select p.queue_id, sum(p.completed), sum(p.failed), sum(p.dead), min(p.first_at)
      from per_minute p
     group by p.queue_id
    on conflict (queue_id) do update
       set completed = t.completed + excluded.completed,
           failed = t.failed + excluded.failed,
           dead = t.dead + excluded.dead
    returning 1
  )
  select count(*) into v_moved from moved;

  -- A day of minutes is kept; older buckets go, a bounded batch per call.
  delete from q_data.throughput t
   where t.ctid = any(array(
           select x.ctid from q_data.throughput x
            where x.minute < now() - interval '1 day'
            limit roll_up_tally.max_rows));
  return v_moved;
end
$$;

comment on function q.roll_up_tally(integer) is
  'Moves up to max_rows rows of q_data.tally into the per-minute buckets of q_data.throughput and the running totals of q_data.throughput_total, and deletes buckets older than a day; returns how many tally rows it moved. Called by q.reap.';

revoke all on function q.roll_up_tally(integer) from public;
