-- Generic plans, one statement per round (revision 0011). With the parents
-- as an array parameter, PostgreSQL's plan cache judged the generic plans of
-- these statements dearer than custom ones and planned them again at every
-- call; and settling the edges and counting the children down were two
-- statements, each with its executor start-up. Server CPU per completion of a
-- job with 10 children (own transaction each, median of 5 alternating rounds
-- of 970): 504 us in 0010, 324 us with generic plans, 304 us in one
-- statement; a plain completion is 53 us (design.md#one-check-constraint-one-trigger-per-event).
create or replace function q.deps_resolve(parents bigint[], outcome "char")
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
set plan_cache_mode = force_generic_plan
as $$
declare
  v_frontier  bigint[] := deps_resolve.parents;
  v_out       "char" := deps_resolve.outcome;
  v_now       timestamptz := clock_timestamp();
  v_found     boolean;
  v_cancel_ids bigint[];
  v_next      bigint[];
  v_queues    integer[];
  v_keyed     tid[];
  v_job       q_data.job;
begin
  -- Parents ended with v_out (c completed, d dead, x cancelled). Each round
  -- settles the unsettled edges of the frontier; children cancelled by
  -- policy form the next frontier (with outcome x). A loop, not recursion
  -- through q.job_ended: cancelling a chain of 10,000 would otherwise nest
  -- 10,000 calls and overflow the stack.
  --
  -- Exactly once at READ COMMITTED: parents_left is a counter ON THE CHILD
  -- ROW. Two parents ending at once both UPDATE that row; the second waits
  -- for the first's commit and then recomputes parents_left - n from the row
  -- the first committed, so exactly one of them sees it reach 0 and makes the
  -- child waiting, in its own transaction. (Counting the remaining edges
  -- instead fails: each of two concurrent last parents still sees the
  -- other's edge.) The cost, for a fan-in of 10,000 parents: 10,000 updates
  -- of one row (HOT, pruned as it goes), and parents that end at the same
  -- moment finish one after another: each holds the child's row lock from
  -- its UPDATE to its commit (a WAL flush), so siblings complete at about
  -- one per commit time, a few thousand per second. Jobs that are not
  -- siblings of one child never wait for each other.
  while cardinality(v_frontier) > 0 loop
    -- One statement: the frontier's unsettled edges are settled, and their
    -- children counted down, in id order (common children of parents that
    -- end at once are locked in the same order). A cancel edge wins over a
    -- hold edge, which wins over run-anyway.
    with e as (
      update q_data.job_dep d
         set outcome = v_out
       where d.parent_id = any(v_frontier)
         and d.outcome is null
      returning d.child_id, d.on_failure),
    x as (
      select e.child_id as id, count(*)::integer as n,
             bool_or(v_out <> 'c' and e.on_failure = 'c') as c,
             bool_or(v_out <> 'c' and e.on_failure = 'h') as h
        from e group by e.child_id order by e.child_id),
    u as (
      update q_data.job j
         set parents_left = j.parents_left - x.n,
             state = case
               when x.h and j.state = 'p' then 'o'::"char"
               when j.state = 'p' and j.parents_left - x.n = 0 then
                 case when j.run_at > v_now then 's'::"char" else 'w'::"char" end
               else j.state end
        from x
       where j.id = x.id
         and j.state in ('p', 'o')
         and not x.c
      returning j.ctid, j.queue_id, j.state, j.concurrency_key, j.key_slot)
    select exists (select from x),
           array(select x.id from x where x.c order by x.id),
           (select array_agg(distinct u.queue_id) from u where u.state = 'w'),
           (select array_agg(u.ctid) from u
             where u.state = 'w' and u.concurrency_key is not null and u.key_slot is null)
      into v_found, v_cancel_ids, v_queues, v_keyed;
    exit when not v_found;
    -- Keyed children made waiting take a key slot or are held (q.flow_admit).
    if v_keyed is not null then
      perform q.flow_admit(v_keyed);
    end if;
    if v_queues is not null and q.notify_allowed() then
      -- Wake only queues a worker waits on (as the enqueue trigger does):
      -- NOTIFY serializes commits.
      perform pg_notify('pgq', qq.name)
         from q_data.queue qq
        where qq.id = any(v_queues)
          and exists (select from q_data.waiter w where w.queue = qq.name);
    end if;

    -- Children cancelled by policy: to the history as cancelled, their batch
    -- told, and those with children of their own are the next frontier.
    -- q.job_ended (outcome k) only records each one's end as a child: the
    -- rest is done here.
    v_next := '{}';
    if cardinality(v_cancel_ids) > 0 then
      for v_job in
        delete from q_data.job j
         where j.id = any(v_cancel_ids)
           and j.state in ('p', 'o')
        returning j.*
      loop
        perform q.job_ended(v_job, 'k');
        perform q.finish(v_job, 'cancelled', v_now);
        if v_job.batch_id is not null then
          perform q.batch_member_ended(v_job.batch_id, v_job.id, 'x');
        end if;
        if v_job.has_children then
          v_next := v_next || v_job.id;
        end if;
      end loop;
    end if;
    v_frontier := v_next;
    v_out := 'x';
  end loop;
end
$$;

comment on function q.deps_resolve(bigint[], "char") is
  'Passes the end of parents (outcome c, d or x) to their children: counts parents_left down (0 makes the child waiting or scheduled), holds (state o) or cancels children by each edge''s on_failure, cascading cancels down the graph iteratively.';

revoke all on function q.deps_resolve(bigint[], "char") from public;
