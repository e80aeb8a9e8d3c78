create or replace function q.deps_rejoin(id bigint, out parents_left integer, out has_children boolean)
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_parents  bigint[];
  v_live     bigint[];
begin
  -- q.retry puts a dead or cancelled job back; this puts it back in its graph.
  --
  -- As a child: it waits again for every parent that has not completed and is
  -- live now (an operator retried it first, or it never ended). Those parents
  -- are locked and flagged by q.deps_mark_parents, as for a new child, so a
  -- parent that ends concurrently sees the edge (reset below) after we
  -- commit: exactly once, as for q.enqueue_after. Parents that completed, or
  -- that are still dead or cancelled, stay settled: the job does not wait for
  -- them (retry those first to have it wait). NULL parents_left: not a child.
  select array_agg(d.parent_id order by d.parent_id) into v_parents
    from q_data.job_dep d
   where d.child_id = deps_rejoin.id and d.outcome is distinct from 'c';
  if v_parents is not null then
    select array_agg(p.parent_id) filter (where p.outcome is null) into v_live
      from q.deps_mark_parents(v_parents) p;
    update q_data.job_dep d
       set outcome = null
     where d.child_id = deps_rejoin.id and d.parent_id = any(v_live) and d.outcome is not null;
  end if;
  parents_left := case
    when v_live is not null then cardinality(v_live)
    when exists (select from q_data.job_dep d where d.child_id = deps_rejoin.id) then 0
  end;

  -- As a parent: children on hold because it died or was cancelled (the hold
  -- policy) wait for it again; one still held by another failed parent stays
  -- on hold. Children it cancelled or that ran anyway are settled (retry a
  -- cancelled child after this job to have it wait). Children are locked in
  -- id order, as q.deps_resolve locks them.
  with c as (
    update q_data.job c
       set parents_left = c.parents_left + 1,
           state = case
             when exists (select from q_data.job_dep o
                           where o.child_id = c.id and o.parent_id <> deps_rejoin.id
                             and o.on_failure = 'h' and o.outcome in ('d', 'x'))
             then 'o'::"char" else 'p'::"char" end
      from (select d.child_id from q_data.job_dep d
             where d.parent_id = deps_rejoin.id and d.on_failure = 'h' and d.outcome in ('d', 'x')
             order by d.child_id) h
     where c.id = h.child_id and c.state = 'o'
    returning c.id),
  e as (
    update q_data.job_dep d
       set outcome = null
      from c
     where d.parent_id = deps_rejoin.id and d.child_id = c.id
    returning 1)
  select case when count(*) > 0 then true end into has_children from e;
end
$$;

comment on function q.deps_rejoin(bigint) is
  'For q.retry: puts a job back in its graph. Returns the parents it waits for again (live parents that have not completed; their edges are reset, the parents locked and flagged) or NULL if it has none, and true when children on hold because it failed (hold policy) wait for it again.';

revoke all on function q.deps_rejoin(bigint) from public;
