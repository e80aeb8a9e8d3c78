-- What q.claim returns for each job it claimed.
create type q.claimed_job as (
  id           bigint,
  queue        text,
  payload      jsonb,
  attempt      integer,
  crashes      integer,
  priority     integer,
  token        uuid,
  lease_until  timestamptz
);

comment on type q.claimed_job is
  'A claimed job: pass id and token to q.complete / q.fail / q.heartbeat before lease_until.';

-- What q.stats returns per queue.
create type q.queue_stats as (
  queue           text,
  paused          boolean,
  waiting         bigint,
  scheduled       bigint,
  running         bigint,
  dead            bigint,
  oldest_waiting  interval,
  -- false: the count above is the planner's estimate (more than q.stats's
  -- exact_up_to jobs); true: counted exactly.
  waiting_exact    boolean,
  scheduled_exact  boolean,
  dead_exact       boolean,
  -- Added by revision 0008 (design.md#held-jobs-are-visible): jobs held back
  -- by their concurrency key (state h), no longer counted in waiting.
  held             bigint,
  held_exact       boolean,
  -- Added by revision 0010: jobs that wait for parents (state p) and jobs on
  -- hold after a parent failed (state o); 0009 counted them nowhere.
  pending          bigint,
  pending_exact    boolean,
  on_hold          bigint,
  on_hold_exact    boolean
);

comment on type q.queue_stats is
  'Per-queue counts: waiting (due now and claimable: waiting jobs and due scheduled ones the reaper has not promoted yet; not held ones), scheduled (later), running, dead, held (due but held back because their concurrency key''s slots are taken), pending (waiting for parents) and on_hold (a parent failed under the hold policy); oldest_waiting is how long the oldest due job has waited. *_exact says whether a count is exact or the planner''s estimate (running is always exact).';

-- What q.jobs returns: a job wherever it is (hot table or history).
create type q.job_info as (
  id           bigint,
  queue        text,
  state        text,
  attempt      integer,
  crashes      integer,
  priority     integer,
  run_at       timestamptz,
  lease_until  timestamptz,
  finished_at  timestamptz,
  dedup_key    text,
  payload      jsonb,
  errors       jsonb,
  -- (revision 0008: a client in any language sees the key of a job without the
  -- producer putting it in the payload too)
  concurrency_key text
);

comment on type q.job_info is
  'A job as an admin sees it: state is waiting, scheduled, running, completed, dead or cancelled; lease_until is set while running, finished_at once finished; concurrency_key is the flow-control key it was enqueued with.';
