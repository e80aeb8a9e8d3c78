create or replace function q.enqueue_after(
  queue              text,
  payload            jsonb,
  after              bigint[],
  on_parent_failure  text        default 'cancel',
  run_at             timestamptz default null,
  priority           integer     default 0,
  max_attempts       integer     default null,
  concurrency_key    text        default null,
  batch              bigint      default null
)
returns bigint
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_now       timestamptz := clock_timestamp();
  v_run_at    timestamptz := coalesce(enqueue_after.run_at, v_now);
  v_policy    "char" := q.deps_policy(enqueue_after.on_parent_failure);
  v_after     bigint[] := q.deps_check_parents(enqueue_after.after);
  v_queue_id  integer;
  v_left      integer;
  v_id        bigint;
  v_dead      bigint[];
  v_cancelled bigint[];
begin
  -- A companion of q.enqueue, not a parameter of it: q.enqueue is the
  -- hottest path and stays as it was. No dedup_key here (a deduplicated
  -- child would need its edges merged with the existing job's).
  perform q.check_job_options(enqueue_after.payload, enqueue_after.priority, enqueue_after.max_attempts);
  if not isfinite(enqueue_after.run_at) then
    raise exception 'run_at must be a finite timestamp, got %', enqueue_after.run_at
      using errcode = '22023';
  end if;
  perform q.check_concurrency_key(enqueue_after.concurrency_key);
  if enqueue_after.batch is not null then
    perform q.batch_join(enqueue_after.batch);
  end if;
  v_queue_id := (q.ensure_queue(enqueue_after.queue)).id;

  -- Live parents are locked and flagged; ended ones come back with how they ended.
  with p as (select * from q.deps_mark_parents(v_after))
  select count(*) filter (where p.outcome is distinct from 'c'),
         array_agg(p.parent_id) filter (where p.outcome = 'd'),
         array_agg(p.parent_id) filter (where p.outcome = 'x'),
         array_agg(p.parent_id) filter (where p.outcome = 'c')
    into v_left, v_dead, v_cancelled, v_after
    from p;

  insert into q_data.job as j (queue_id, payload, run_at, state, priority, max_attempts, concurrency_key,
                               parents_left, batch_id)
  values (v_queue_id, enqueue_after.payload, v_run_at,
          case when v_left > 0 then 'p' when v_run_at > v_now then 's' else 'w' end,
          enqueue_after.priority, enqueue_after.max_attempts, enqueue_after.concurrency_key,
          v_left, enqueue_after.batch)
  returning j.id into v_id;

  -- Edges: completed parents settled already; the others settle when they end.
  insert into q_data.job_dep (child_id, parent_id, on_failure, outcome)
  select v_id, p, v_policy, 'c' from unnest(v_after) p
  union all
  select v_id, p, v_policy, null
    from unnest(q.deps_check_parents(enqueue_after.after)) p
   where p <> all(coalesce(v_after, '{}'));

  -- Parents that died or were cancelled before this child existed: their
  -- end reaches it now, by the policy, as if they had ended just now.
  if v_dead is not null then
    perform q.deps_resolve(v_dead, 'd');
  end if;
  if v_cancelled is not null then
    perform q.deps_resolve(v_cancelled, 'x');
  end if;
  return v_id;
end
$$;

comment on function q.enqueue_after(text, jsonb, bigint[], text, timestamptz, integer, integer, text, bigint) is
  'Adds a job that runs after every job in after has ended, and returns its id. Until then it is pending (not claimable); it becomes waiting (or scheduled, per run_at) in the transaction that ends its last parent. on_parent_failure says what a parent that dies or is cancelled does to it: cancel (default; cascades to its own children), run (counts as done) or hold (state on hold until q.unblock or q.cancel). Parents that already ended count as they ended (one neither live nor in the history counts as completed). batch makes it a member of that unsealed batch. P0002: unknown parent or batch; 54000: more than 10000 parents; 55000: sealed batch; 22023: bad option. Commits with the caller''s transaction.';

revoke all on function q.enqueue_after(text, jsonb, bigint[], text, timestamptz, integer, integer, text, bigint) from public;
grant execute on function q.enqueue_after(text, jsonb, bigint[], text, timestamptz, integer, integer, text, bigint) to pgq_producer;
