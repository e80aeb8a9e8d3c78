create or replace function q.job_graph(id bigint, max_rows integer default 100)
returns table (job_id bigint, relation text, state text, queue text, edge_outcome text, on_parent_failure text)
language plpgsql
stable
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_ids  bigint[];
begin
  if job_graph.id is null then
    raise exception 'job id must not be null' using errcode = '22004';
  end if;
  perform q.check_max_rows(job_graph.max_rows, 10000);
  return query
  with rel as (
    select job_graph.id as jid, 'self'::text as relation, null::"char" as outcome, null::"char" as pol, 0 as ord
    union all
    (select d.parent_id, 'parent', d.outcome, d.on_failure, 1 from q_data.job_dep d
      where d.child_id = job_graph.id order by d.parent_id limit job_graph.max_rows)
    union all
    (select d.child_id, 'child', d.outcome, d.on_failure, 2 from q_data.job_dep d
      where d.parent_id = job_graph.id order by d.child_id limit job_graph.max_rows)
  ),
  -- Each related job's state: running and pending jobs by index, finished
  -- ones from the history; what is left (waiting, scheduled, held) from
  -- one read of the hot table, for at most 2 * max_rows + 1 ids.
  live_r as (select j.id, j.state, j.queue_id from q_data.job j where j.id in (select jid from rel) and j.state = 'r'),
  live_p as (select j.id, j.state, j.queue_id from q_data.job j where j.id in (select jid from rel) and j.state in ('p', 'o')),
  done as (select h.id, h.state, h.queue_id from q_data.job_history h where h.id in (select jid from rel)),
  rest as (select j.id, j.state, j.queue_id from q_data.job j
            where j.id in (select jid from rel
                            where jid not in (select x.id from live_r x union all select x.id from live_p x
                                              union all select x.id from done x))),
  st as (
    select x.id, case x.state when 'r' then 'running' when 'p' then 'pending' when 'o' then 'on_hold' end as s, x.queue_id from live_r x
    union all select x.id, case x.state when 'p' then 'pending' else 'on_hold' end, x.queue_id from live_p x
    union all select x.id, x.state, x.queue_id from done x
    union all select x.id, case x.state when 's' then 'scheduled' else 'waiting' end, x.queue_id from rest x
  )
  select r.jid, r.relation, coalesce(st.s, 'gone'), qq.name,
         case r.outcome when 'c' then 'completed' when 'd' then 'dead' when 'x' then 'cancelled' end,
         case r.pol when 'c' then 'cancel' when 'r' then 'run' when 'h' then 'hold' end
    from rel r
    left join st on st.id = r.jid
    left join q_data.queue qq on qq.id = st.queue_id
   order by r.ord, r.jid;
end
$$;

comment on function q.job_graph(bigint, integer) is
  'A job''s place in its graph: itself (relation self), its parents and its children (at most max_rows each, 1..10000), each with its state (waiting, scheduled, running, pending, on_hold, completed, dead, cancelled, or gone: completed in a queue that keeps no history), its queue, how the edge ended (edge_outcome, NULL while the parent has not) and the edge''s on_parent_failure.';

revoke all on function q.job_graph(bigint, integer) from public;
grant execute on function q.job_graph(bigint, integer) to pgq_viewer;
