create or replace function q.jobs(
  queue     text    default null,
  state     text    default null,
  id        bigint  default null,
  max_rows  integer default 50
)
returns setof q.job_info
language plpgsql
stable
security definer
set search_path = pg_catalog, pg_temp
as $$
begin
  if jobs.state not in ('waiting', 'scheduled', 'running', 'pending', 'on_hold', 'completed', 'dead', 'cancelled') then
    raise exception 'state must be one of waiting, scheduled, running, pending, on_hold, completed, dead, cancelled; got %',
      quote_literal(jobs.state)
      using errcode = '22023';
  end if;
  if jobs.max_rows is null or jobs.max_rows not between 1 and 10000 then
    raise exception 'max_rows must be between 1 and 10000, got %', coalesce(jobs.max_rows::text, 'NULL')
      using errcode = '22023';
  end if;

  -- An admin view, not a claim path: waiting jobs have no id index, so a
  -- lookup by id may scan the hot table.
  return query
    select a.*
      from (
        select j.id, qq.name,
               case j.state when 'w' then 'waiting' when 'h' then 'waiting' when 's' then 'scheduled' when 'p' then 'pending' when 'o' then 'on_hold' else 'running' end,
               j.attempt::integer, coalesce(j.crashes, 0)::integer, j.priority::integer, j.run_at,
               j.lease_until, null::timestamptz, j.dedup_key, j.payload, j.errors, j.concurrency_key
          from q_data.job j
          join q_data.queue qq on qq.id = j.queue_id
        union all
        select h.id, qq.name, h.state, h.attempt::integer, coalesce(h.crashes, 0)::integer,
               h.priority::integer, h.run_at, null::timestamptz, h.finished_at, h.dedup_key, h.payload, h.errors,
               h.concurrency_key
          from q_data.job_history h
          join q_data.queue qq on qq.id = h.queue_id
      ) as a (id, queue, state, attempt, crashes, priority, run_at, lease_until, finished_at, dedup_key, payload, errors,
              concurrency_key)
     where (jobs.queue is null or a.queue = jobs.queue)
       and (jobs.state is null or a.state = jobs.state)
       and (jobs.id is null or a.id = jobs.id)
     order by a.id desc
     limit jobs.max_rows;
end
$$;

comment on function q.jobs(text, text, bigint, integer) is
  'Lists jobs newest first, live and finished, optionally of one queue, one state (waiting, scheduled, running, pending: waits for parents, on_hold: a parent failed under the hold policy, completed, dead, cancelled) or one id, with their concurrency keys; at most max_rows (1..10000). For admins, who have no table privileges.';

revoke all on function q.jobs(text, text, bigint, integer) from public;
grant execute on function q.jobs(text, text, bigint, integer) to pgq_viewer;
