-- The reaper's pass over the graph tables (design.md#results-and-dependencies):
-- edges of children that ended longer ago than their queue's retention, and
-- fired batches older than their callback queue's retention, with their
-- members' q_data.batch_done rows. Without it every edge and batch ever made
-- stays (the growth 0008 fixed for key slots). Bounded: at most max_rows
-- children, edges, batches and member rows per call; a child with more edges
-- than that loses them over several reaps, and its q_data.job_dep_ended row
-- goes with its last edge.
--
-- Children are visited per queue (a loose index scan of job_dep_ended_at_idx,
-- as q.purge_results), so a queue with a long retention never makes the scan
-- step over its rows on every reap. A queue that is gone counts as retention 0.
create or replace function q.purge_deps(max_rows integer, now timestamptz)
returns integer
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_queue_id  integer;
  v_keep      interval;
  v_children  bigint[] := '{}';
  v_batches   bigint[];
  v_count     integer;
  v_purged    integer := 0;
begin
  for v_queue_id in
    with recursive ended as (
      select (select e.queue_id from q_data.job_dep_ended e order by e.queue_id limit 1) as queue_id
      union all
      select (select e.queue_id from q_data.job_dep_ended e where e.queue_id > p.queue_id
               order by e.queue_id limit 1)
        from ended p
       where p.queue_id is not null
    )
    select x.queue_id from ended x where x.queue_id is not null
  loop
    exit when cardinality(v_children) >= purge_deps.max_rows;
    v_keep := (select qq.retention from q_data.queue qq where qq.id = v_queue_id);
    v_children := v_children || array(
      select e.child_id from q_data.job_dep_ended e
       where e.queue_id = v_queue_id
         and e.ended_at < purge_deps.now - coalesce(v_keep, interval '0')
       order by e.ended_at
       limit purge_deps.max_rows - cardinality(v_children)
         for update skip locked);
  end loop;
  if cardinality(v_children) > 0 then
    delete from q_data.job_dep d
     where d.ctid = any(array(
             select x.ctid from q_data.job_dep x
              where x.child_id = any(v_children)
              limit purge_deps.max_rows));
    get diagnostics v_purged = row_count;
    delete from q_data.job_dep_ended e
     where e.child_id = any(v_children)
       and not exists (select from q_data.job_dep d where d.child_id = e.child_id);
  end if;

  -- Fired batches past their callback queue's retention. Open or unsealed
  -- batches stay: their members may still join or end.
  v_batches := array(
    select b.id from q_data.batch b
      left join q_data.queue qq on qq.name = b.callback_queue
     where b.fired_at is not null
       and b.fired_at < purge_deps.now - coalesce(qq.retention, interval '0')
     order by b.fired_at
     limit purge_deps.max_rows
       for update of b skip locked);
  if cardinality(v_batches) > 0 then
    delete from q_data.batch_done m
     where m.ctid = any(array(
             select x.ctid from q_data.batch_done x
              where x.batch_id = any(v_batches)
              limit purge_deps.max_rows));
    get diagnostics v_count = row_count;
    v_purged := v_purged + v_count;
    delete from q_data.batch b
     where b.id = any(v_batches)
       and not exists (select from q_data.batch_done m where m.batch_id = b.id);
  end if;
  return v_purged;
end
$$;

comment on function q.purge_deps(integer, timestamptz) is
  'Deletes the edges (q_data.job_dep) of up to max_rows children that ended longer ago than their queue''s retention, and fired batches older than their callback queue''s retention with their q_data.batch_done rows (up to max_rows of each); returns how many edges and member rows.';

revoke all on function q.purge_deps(integer, timestamptz) from public;
