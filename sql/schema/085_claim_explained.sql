-- A claim that explains itself in one statement (revision 0009,
-- design.md#short-claims-explain-themselves): q.claim_explained returns these
-- rows. Until 0009 why a claim came back short was only in the
-- transaction-local settings pgq.claim_blocked and pgq.claim_retry_in, which a
-- pooled one-statement client (autocommit, any driver) cannot read after its
-- statement: it learned nothing exactly when the claim was empty.
create type q.explained_claim as (
  id           bigint,
  queue        text,
  payload      jsonb,
  attempt      integer,
  crashes      integer,
  priority     integer,
  token        uuid,
  lease_until  timestamptz,
  -- Why the claim returned fewer jobs than asked (NULL: it did not, or
  -- nothing but an empty queue stopped it), the same on every row.
  blocked      text,
  -- When a time-based limit lets the next job start: always positive with
  -- blocked rate or key_rate; NULL with concurrency, key_concurrency, paused.
  retry_in     interval
);

comment on type q.explained_claim is
  'A row of q.claim_explained: a claimed job (the q.claimed_job columns; all NULL on the one row of a claim that got nothing) with blocked (why the claim got fewer than n: concurrency, key_concurrency, rate, key_rate or paused; NULL when nothing but an empty queue stopped it) and retry_in (with rate or key_rate: how long until the limit lets the next job start, never zero; NULL otherwise).';

-- Jobs a per-key rate put off (state s, rate_wait), by when they are due: a
-- short claim on a key-rate queue says when the first is due without walking
-- the queue's other scheduled jobs (until 0009 it looked at the first 100
-- scheduled jobs only, and said nothing when more than 100 delayed jobs or
-- retries came before the first put-off one). One index entry per put-off
-- job, written by the update that puts it off.
create index job_put_off_idx on q_data.job (queue_id, run_at) where state = 's' and rate_wait;
