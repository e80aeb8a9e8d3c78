create or replace function q.deps_mark_parents(parents bigint[])
returns table (parent_id bigint, outcome "char")
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_rest  bigint[] := deps_mark_parents.parents;
  v_hit   bigint[];
  v_last  bigint;
begin
  -- Every parent still in q_data.job gets has_children = true under a row
  -- lock held until we commit. That lock is what makes a late child exact:
  -- a parent that ends concurrently deletes its row only after we commit,
  -- and its AFTER DELETE trigger then sees the flag and our edges; a parent
  -- that ended first is no longer there, and its history (or its absence)
  -- says how it ended. Ids arrive sorted, and each UPDATE below walks them
  -- in id order, so two producers lock common parents in the same order.
  --
  -- Running parents, by job_running_idx; pending ones (a chain's middle),
  -- by job_pending_idx.
  with m as (
    update q_data.job j set has_children = true
     where j.id = any(v_rest) and j.state = 'r'
    returning j.id)
  select array_agg(m.id) into v_hit from m;
  v_rest := array(select x from unnest(v_rest) x where x <> all(coalesce(v_hit, '{}')) order by x);
  return query select x, null::"char" from unnest(v_hit) x;
  if cardinality(v_rest) = 0 then return; end if;

  with m as (
    update q_data.job j set has_children = true
     where j.id = any(v_rest) and j.state in ('p', 'o')
    returning j.id)
  select array_agg(m.id) into v_hit from m;
  v_rest := array(select x from unnest(v_rest) x where x <> all(coalesce(v_hit, '{}')) order by x);
  return query select x, null::"char" from unnest(v_hit) x;
  if cardinality(v_rest) = 0 then return; end if;

  -- Waiting, scheduled and held parents have no id index (one index entry
  -- per waiting job is a deliberate limit of q_data.job): one read of the
  -- hot table for all of them. Enqueue children in the same q.enqueue_flow
  -- call as their parents, or after them while they run, to avoid it.
  with m as (
    update q_data.job j set has_children = true
     where j.id = any(v_rest)
    returning j.id)
  select array_agg(m.id) into v_hit from m;
  v_rest := array(select x from unnest(v_rest) x where x <> all(coalesce(v_hit, '{}')) order by x);
  return query select x, null::"char" from unnest(v_hit) x;
  if cardinality(v_rest) = 0 then return; end if;

  -- Ended parents: the history says dead or cancelled (or completed, where
  -- the queue keeps completed jobs).
  return query
    select h.id, case h.state when 'completed' then 'c' when 'dead' then 'd' else 'x' end::"char"
      from q_data.job_history h
     where h.id = any(v_rest);
  v_rest := array(select x from unnest(v_rest) x
                   where not exists (select from q_data.job_history h where h.id = x) order by x);
  if cardinality(v_rest) = 0 then return; end if;

  -- Neither live nor in the history: completed in a queue that keeps no
  -- completed jobs (or past its retention), if the id was ever handed out.
  -- pgq keeps no other record of it, so such a parent counts as completed.
  select s.last_value into v_last from q_data.job_id_seq s;
  if exists (select from unnest(v_rest) x where x > v_last or x < 1) then
    raise exception 'after names job % which does not exist',
      (select min(x) from unnest(v_rest) x where x > v_last or x < 1)
      using errcode = 'P0002';
  end if;
  return query select x, 'c'::"char" from unnest(v_rest) x;
end
$$;

comment on function q.deps_mark_parents(bigint[]) is
  'For a new child: marks every live parent (has_children, row locked until commit) and returns each parent with its outcome: NULL while live, c/d/x if it already completed, died or was cancelled. P0002 for an id never handed out.';

revoke all on function q.deps_mark_parents(bigint[]) from public;
