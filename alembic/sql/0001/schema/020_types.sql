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
  oldest_waiting  interval
);

comment on type q.queue_stats is
  'Per-queue counts: waiting (due now), scheduled (later), running, dead; oldest_waiting is how long the oldest due job has waited.';
