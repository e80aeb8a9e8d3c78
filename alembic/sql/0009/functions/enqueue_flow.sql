create or replace function q.enqueue_flow(jobs jsonb)
returns table (ref text, id bigint)
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_now      timestamptz := clock_timestamp();
  v_n        integer;
  v_refs     text[];
  v_job      jsonb;
  v_i        integer;
  v_a        jsonb;
  v_par      integer[] := '{}';   -- local edges: v_par[k] -> v_chi[k] (1-based job numbers)
  v_chi      integer[] := '{}';
  v_pol      "char"[] := '{}';
  v_xpar     bigint[] := '{}';    -- edges to existing jobs: v_xpar[k] -> v_xchi[k]
  v_xchi     integer[] := '{}';
  v_xpol     "char"[] := '{}';
  v_policy   "char";
  v_indeg    integer[];
  v_start    integer[];
  v_adj      integer[];
  v_queue    integer[];
  v_head     integer := 1;
  v_tail     integer := 0;
  v_k        integer;
  v_c        integer;
  v_ids      bigint[];
  v_outcome  jsonb := '{}';
  v_dead     bigint[];
  v_cancelled bigint[];
  v_batches  bigint[];
  v_left     integer[];
  v_child    boolean[];
  v_parent   boolean[];
  v_qids     jsonb;
  v_refidx   jsonb;   -- ref -> position: a lookup in O(log jobs), not a scan of v_refs per edge
begin
  if jsonb_typeof(enqueue_flow.jobs) is distinct from 'array' or jsonb_array_length(enqueue_flow.jobs) = 0 then
    raise exception 'jobs must be a non-empty JSON array of job objects' using errcode = '22023';
  end if;
  v_n := jsonb_array_length(enqueue_flow.jobs);
  -- Caps bound one call's transaction: 100,000 jobs and 100,000 edges
  -- (fan-out or fan-in of 10,000 fit); 10,000 parents per job.
  if v_n > 100000 then
    raise exception 'a flow can have at most 100000 jobs, got %', v_n using errcode = '54000';
  end if;

  -- Local references: "ref" (any string) or, without one, the job's position (1, 2, ...).
  v_refs := array(select coalesce(e ->> 'ref', o::text)
                    from jsonb_array_elements(enqueue_flow.jobs) with ordinality as t(e, o) order by o);
  if (select count(distinct r) from unnest(v_refs) r) <> v_n then
    raise exception 'refs must be unique within a flow (a job without ref is named by its position)'
      using errcode = '22023';
  end if;
  v_refidx := (select jsonb_object_agg(r, k) from unnest(v_refs) with ordinality as t(r, k));

  -- One pass over the elements (indexing the array per job would re-read it each time).
  for v_job, v_i in select e, o::integer from jsonb_array_elements(enqueue_flow.jobs) with ordinality as t(e, o) loop
    if jsonb_typeof(v_job) is distinct from 'object' or jsonb_typeof(v_job -> 'queue') is distinct from 'string'
       or not v_job ? 'payload' then
      raise exception 'job % of the flow must be an object with queue (a string) and payload', v_refs[v_i]
        using errcode = '22023';
    end if;
    perform q.check_job_options(v_job -> 'payload', coalesce((v_job ->> 'priority')::integer, 0),
                                (v_job ->> 'max_attempts')::integer);
    if v_job ? 'concurrency_key' then
      perform q.check_concurrency_key(v_job ->> 'concurrency_key');
    end if;
    if not isfinite((v_job ->> 'run_at')::timestamptz) then
      raise exception 'run_at of job % must be a finite timestamp', v_refs[v_i] using errcode = '22023';
    end if;
    -- (inline for the common values: a call per job costs more than the rest of its checks)
    v_policy := case coalesce(v_job ->> 'on_parent_failure', 'cancel')
                  when 'cancel' then 'c' when 'run' then 'r' when 'hold' then 'h'
                  else q.deps_policy(v_job ->> 'on_parent_failure') end;
    if v_job ? 'after' and jsonb_typeof(v_job -> 'after') is distinct from 'array' then
      raise exception 'after of job % must be an array of refs (strings) and job ids (numbers)', v_refs[v_i]
        using errcode = '22023';
    end if;
    if jsonb_array_length(coalesce(v_job -> 'after', '[]')) > 10000 then
      raise exception 'a job can wait for at most 10000 parents, job % has %', v_refs[v_i],
        jsonb_array_length(v_job -> 'after') using errcode = '54000';
    end if;
    for v_a in select * from jsonb_array_elements(coalesce(v_job -> 'after', '[]')) loop
      if jsonb_typeof(v_a) = 'string' then
        v_k := (v_refidx ->> (v_a #>> '{}'))::integer;
        if v_k is null then
          raise exception 'job % waits for %, which is not a ref of this flow', v_refs[v_i], v_a
            using errcode = '22023';
        end if;
        if v_k = v_i then
          raise exception 'job % waits for itself', v_refs[v_i] using errcode = '22023';
        end if;
        v_par := v_par || v_k; v_chi := v_chi || v_i; v_pol := v_pol || v_policy;
      elsif jsonb_typeof(v_a) = 'number' then
        v_xpar := v_xpar || (v_a #>> '{}')::bigint; v_xchi := v_xchi || v_i; v_xpol := v_xpol || v_policy;
      else
        raise exception 'job % waits for %: after holds refs (strings) and job ids (numbers)', v_refs[v_i], v_a
          using errcode = '22023';
      end if;
    end loop;
    if v_job ? 'batch' then
      v_batches := v_batches || (v_job ->> 'batch')::bigint;
    end if;
  end loop;
  if cardinality(v_par) + cardinality(v_xpar) > 100000 then
    raise exception 'a flow can have at most 100000 edges, got %', cardinality(v_par) + cardinality(v_xpar)
      using errcode = '54000';
  end if;
  if (select count(*) from (select distinct p, c from unnest(v_par, v_chi) x(p, c)) d) <> cardinality(v_par)
     or (select count(*) from (select distinct p, c from unnest(v_xpar, v_xchi) x(p, c)) d) <> cardinality(v_xpar) then
    raise exception 'a job lists the same parent twice in after' using errcode = '22023';
  end if;

  -- Acyclic: Kahn's algorithm over the local edges, O(jobs + edges). Edges
  -- to existing jobs cannot close a cycle (those jobs cannot wait for jobs
  -- that do not exist yet).
  v_indeg := array_fill(0, array[v_n]);
  v_start := array_fill(0, array[v_n + 1]);
  for v_k in 1 .. cardinality(v_par) loop
    v_indeg[v_chi[v_k]] := v_indeg[v_chi[v_k]] + 1;
    v_start[v_par[v_k] + 1] := v_start[v_par[v_k] + 1] + 1;
  end loop;
  v_start[1] := 1;
  for v_k in 2 .. v_n + 1 loop
    v_start[v_k] := v_start[v_k] + v_start[v_k - 1];
  end loop;
  -- v_start[p] .. v_start[p + 1] - 1 index p's children in v_adj.
  v_adj := array(select x.c from unnest(v_par, v_chi) x(p, c) order by x.p, x.c);
  v_queue := array_fill(0, array[v_n]);
  for v_k in 1 .. v_n loop
    if v_indeg[v_k] = 0 then
      v_tail := v_tail + 1; v_queue[v_tail] := v_k;
    end if;
  end loop;
  while v_head <= v_tail loop
    v_k := v_queue[v_head]; v_head := v_head + 1;
    for v_c in v_start[v_k] .. v_start[v_k + 1] - 1 loop
      v_indeg[v_adj[v_c]] := v_indeg[v_adj[v_c]] - 1;
      if v_indeg[v_adj[v_c]] = 0 then
        v_tail := v_tail + 1; v_queue[v_tail] := v_adj[v_c];
      end if;
    end loop;
  end loop;
  if v_tail < v_n then
    raise exception 'the flow has a cycle through job %',
      (select v_refs[k] from generate_subscripts(v_indeg, 1) k where v_indeg[k] > 0 limit 1)
      using errcode = '22023',
            detail = format('jobs on or behind a cycle: %s',
              (select string_agg(v_refs[k], ', ') from (select k from generate_subscripts(v_indeg, 1) k
                where v_indeg[k] > 0 limit 20) s));
  end if;

  -- Batches the jobs join (locked until commit; sealed or unknown: error).
  perform q.batch_join(b) from (select distinct b from unnest(v_batches) b) s;

  -- Existing parents: locked and flagged if live, or how they ended.
  if cardinality(v_xpar) > 0 then
    select coalesce(jsonb_object_agg(p.parent_id::text, p.outcome), '{}') into v_outcome
      from q.deps_mark_parents(q.deps_check_parents(array(select distinct x from unnest(v_xpar) x))) p
     where p.outcome is not null;
  end if;

  -- Ids first (the identity's own sequence), so edges can name them.
  v_ids := array(select nextval('q_data.job_id_seq') from generate_series(1, v_n));

  -- Per job: parents not ended yet, whether it has parents / children.
  v_left := array_fill(0, array[v_n]);
  v_child := array_fill(false, array[v_n]);
  v_parent := array_fill(false, array[v_n]);
  for v_k in 1 .. cardinality(v_par) loop
    v_left[v_chi[v_k]] := v_left[v_chi[v_k]] + 1;
    v_child[v_chi[v_k]] := true;
    v_parent[v_par[v_k]] := true;
  end loop;
  for v_k in 1 .. cardinality(v_xpar) loop
    v_child[v_xchi[v_k]] := true;
    if (v_outcome ->> v_xpar[v_k]::text) is distinct from 'c' then
      v_left[v_xchi[v_k]] := v_left[v_xchi[v_k]] + 1;
    end if;
  end loop;
  -- Each queue once (q.ensure_queue: its row held against q.reap until commit).
  select jsonb_object_agg(s.name, (q.ensure_queue(s.name)).id) into v_qids
    from (select distinct e ->> 'queue' as name from jsonb_array_elements(enqueue_flow.jobs) e) s;

  insert into q_data.job as j (id, queue_id, payload, run_at, state, priority, max_attempts, concurrency_key,
                               parents_left, has_children, batch_id)
  overriding system value
  select v_ids[t.o], (v_qids ->> (t.e ->> 'queue'))::integer, t.e -> 'payload',
         coalesce((t.e ->> 'run_at')::timestamptz, v_now),
         case when v_left[t.o] > 0 then 'p'
              when coalesce((t.e ->> 'run_at')::timestamptz, v_now) > v_now then 's' else 'w' end,
         coalesce((t.e ->> 'priority')::integer, 0), (t.e ->> 'max_attempts')::integer,
         t.e ->> 'concurrency_key',
         case when v_child[t.o] then v_left[t.o] end,
         case when v_parent[t.o] then true end,
         (t.e ->> 'batch')::bigint
    from jsonb_array_elements(enqueue_flow.jobs) with ordinality as t(e, o)
   order by t.o;

  insert into q_data.job_dep (child_id, parent_id, on_failure, outcome)
  select v_ids[x.c], v_ids[x.p], x.pol, null from unnest(v_par, v_chi, v_pol) x(p, c, pol)
  union all
  select v_ids[x.c], x.p, x.pol, case when v_outcome ->> x.p::text = 'c' then 'c' end
    from unnest(v_xpar, v_xchi, v_xpol) x(p, c, pol);

  -- Existing parents that already died or were cancelled reach their new
  -- children now, by policy (cascading inside the flow).
  v_dead := array(select k::bigint from jsonb_each_text(v_outcome) e(k, v) where e.v = 'd');
  v_cancelled := array(select k::bigint from jsonb_each_text(v_outcome) e(k, v) where e.v = 'x');
  if cardinality(v_dead) > 0 then
    perform q.deps_resolve(v_dead, 'd');
  end if;
  if cardinality(v_cancelled) > 0 then
    perform q.deps_resolve(v_cancelled, 'x');
  end if;

  return query select v_refs[k], v_ids[k] from generate_series(1, v_n) k;
end
$$;

comment on function q.enqueue_flow(jsonb) is
  'Enqueues a graph of jobs in one call and returns each job''s ref and id, in input order. jobs is a JSON array of {"ref", "queue", "payload", "after", "on_parent_failure", "run_at", "priority", "max_attempts", "concurrency_key", "batch"}: after lists refs of this flow (strings) and ids of existing jobs (numbers); ref defaults to the job''s position ("1", "2", ...). All or nothing: a cycle, an unknown ref, an unknown job id (P0002), a bad option (22023) or more than 100000 jobs, 100000 edges or 10000 parents per job (54000) writes nothing. Otherwise as q.enqueue_after per job.';

revoke all on function q.enqueue_flow(jsonb) from public;
grant execute on function q.enqueue_flow(jsonb) to pgq_producer;
