-- One claim statement, four copies: q.claim, q.claim_under_snapshot,
-- q.flow_claim_jobs and q.flow_claim_keyed each write their UPDATE inline, on
-- purpose. Sharing it through one more plpgsql function measured +23 µs per
-- claim (265 vs 242 µs, +9.5 %; `make bench-profile` on a quiet machine,
-- 2026-12-05: design.md#one-claim-statement-four-copies). Change all four
-- together.
create or replace function q.claim(
  queue  text,
  n      integer  default 1,
  lease  interval default null,
  owner  integer  default null
)
returns setof q.claimed_job
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
-- One plan for every call: with LIMIT a parameter, custom plans would be
-- re-made each time (~0.1 ms), and the generic one is the right one.
set plan_cache_mode = force_generic_plan
as $$
declare
  v_queue        q_data.queue;
  v_owner        integer;
  v_lease_until  timestamptz;
  v_wanted       integer := claim.n;
  v_got          integer;
  v_promoted     boolean;  -- NULL until the promotion: no default to evaluate per call
  v_waits        boolean;
  v_until_empty  boolean;
begin
  -- Few tests on the way through (design.md#few-expressions-per-call): plpgsql compiles each
  -- expression again in every transaction, and a claim is its own transaction. So the argument
  -- checks are one test, split only to name the error; the lease cap shares the paused test; a
  -- lease-only claim skips the owner's three; the two tests at the end are one.
  if claim.n is null or claim.n not between 1 and 1000 or claim.lease <= interval '0' or claim.owner < 0 then
    if claim.n is null or claim.n not between 1 and 1000 then
      raise exception 'n must be between 1 and 1000, got %', coalesce(claim.n::text, 'NULL')
        using errcode = '22023';
    end if;
    if claim.lease <= interval '0' then
      raise exception 'lease must be positive, got %', claim.lease
        using errcode = '22023';
    end if;
    raise exception 'owner must be a key from q.session_key(), or 0 for lease-only claims, got %', claim.owner
      using errcode = '22023';
  end if;

  select * into v_queue from q_data.queue qq where qq.name = claim.queue;
  if not found then
    -- A bad name is an error; a good one nobody has used yet is an empty queue.
    perform q.check_queue_name(claim.queue);
    -- Wake-ups on demand: a worker may wait for a queue nobody has used yet.
    if nullif(claim.owner, 0) is not null and current_setting('pgq.listening', true) = 'on'
       and current_setting('transaction_isolation') = 'read committed'
       and exists (select from q_data.session s where s.key = claim.owner) then
      perform q.note_wait(claim.queue, claim.owner, true);
    end if;
    return;
  end if;
  if v_queue.paused or claim.lease > v_queue.max_lease then
    if claim.lease > v_queue.max_lease then
      raise exception 'lease % is longer than queue %''s max_lease %', claim.lease, quote_literal(claim.queue), v_queue.max_lease
        using errcode = '22023',
              hint = 'heartbeat a long job (q.heartbeat) instead, or raise the cap: q.configure(queue, max_lease => ...)';
    end if;
    return;
  end if;

  -- Liveness evidence (0003): only a key the caller passes, from
  -- q.session_key() on a connection it keeps open for as long as the job
  -- runs. NULL and 0 mean lease-only. Until 0002 the default was the
  -- claiming connection's own key, and a pool that closed or recycled that
  -- idle connection while the job ran made the reaper hand it to a second
  -- worker.
  if claim.owner > 0 then
    v_owner := claim.owner;
    if not exists (select from q_data.session s where s.key = v_owner) then
      raise exception 'owner % is not a key from q.session_key()', v_owner
        using errcode = '22023',
              hint = 'call q.session_key() on a connection that stays open while the job runs, or pass 0 / NULL for lease-only claims';
    end if;
    -- Wake-ups on demand (design.md#wake-ups-on-demand, sql/internal/note_wait.sql): a listening
    -- claimer with a liveness key says at the end whether it now waits.
    -- It waits from a claim that comes back short (fewer than n: a loop that
    -- claims until short, as pgq's workers up to 0008 and most LISTEN loops
    -- do), or, with pgq.wait_when = empty (the worker runtime since 0008),
    -- only from one that comes back empty: a worker keeping up with its
    -- producers gets short claims all the time and would be notified by
    -- every enqueue.
    v_waits := coalesce(current_setting('pgq.listening', true), '') = 'on'
               and current_setting('transaction_isolation') = 'read committed';
    v_until_empty := v_waits and coalesce(current_setting('pgq.wait_when', true), '') = 'empty';
  end if;  -- lease-only: v_owner, v_waits and v_until_empty stay NULL (false to IF)
  -- Flow control (design.md#flow-control-without-a-hot-row): a queue with a concurrency, rate or per-key
  -- rate limit takes slots first (sql/internal/flow_claim.sql); unlimited
  -- queues go on below.
  if v_queue.concurrency is not null or v_queue.rate is not null or v_queue.key_rate is not null then
    return query select * from q.flow_claim(v_queue, claim.n, coalesce(claim.lease, v_queue.lease), v_owner);
    get diagnostics v_got = row_count;
    if v_waits then
      -- Cut short by a limit (pgq.claim_blocked) is not idle: the queue has
      -- jobs, and the next freed slot notifies (q.flow_want).
      perform q.note_wait(claim.queue, v_owner,
                          coalesce(current_setting('pgq.claim_blocked', true), '') = ''
                          and v_got < case when v_until_empty then 1 else claim.n end);
    end if;
    return;
  end if;
  v_lease_until := clock_timestamp() + coalesce(claim.lease, v_queue.lease);

  loop
    if current_setting('transaction_isolation') = 'read committed' then
      -- The hot path: the first entries of the claim index, skipping rows
      -- other claimers hold, updated in place by ctid (no id index needed).
      -- Rows come back in claim order (0003): UPDATE ... RETURNING gives
      -- them in physical order, so a worker starting a batch front to back
      -- ran low-priority jobs first.
      return query
        with claimed as (
          update q_data.job j
             set state = 'r',
                 attempt = j.attempt + 1,
                 token = gen_random_uuid(),
                 lease_until = v_lease_until,
                 owner = v_owner
           where j.ctid = any(array(
                   select w.ctid
                     from q_data.job w
                    where w.queue_id = v_queue.id
                      and w.state = 'w'
                    order by w.priority desc, w.run_at
                    limit v_wanted
                      for update skip locked))
          returning j.id, j.payload, j.attempt, j.crashes, j.priority, j.token, j.lease_until, j.run_at
        )
        select c.id, claim.queue, c.payload, c.attempt::integer,
               coalesce(c.crashes, 0)::integer, c.priority::integer,
               c.token, c.lease_until
          from claimed c
         order by c.priority desc, c.run_at, c.id;
    else
      return query
        select * from q.claim_under_snapshot(v_queue.id, claim.queue, v_wanted, v_lease_until, v_owner);
    end if;
    get diagnostics v_got = row_count;
    v_wanted := v_wanted - v_got;
    exit when v_wanted = 0 or v_promoted;

    -- Short of work: make due scheduled jobs (delays, retries) waiting and
    -- look once more, so they run on time even between reaper runs.
    v_promoted := true;
    exit when q.promote_due(v_queue.id, v_wanted) = 0;
  end loop;
  -- Flow control: a keyed queue came back short; a listening claimer wants
  -- the NOTIFY of the next held job admitted (sql/internal/flow_want.sql).
  if v_waits or (v_wanted > 0 and v_queue.key_concurrency is not null) then
    if v_wanted > 0 and v_queue.key_concurrency is not null then
      perform q.flow_want(v_queue.id);
    end if;
    if v_waits then
      if v_wanted = claim.n or (v_wanted > 0 and not v_until_empty) then
        perform q.note_wait(claim.queue, v_owner, true);
      else
        -- Found jobs: the wait, if any, ends. Inline, not through q.note_wait:
        -- this runs on every listening claim of a busy worker, and with no row
        -- it is one index probe and no write. A row a producer holds (it is
        -- taking the wait to send the wake-up) is skipped, never waited for.
        if exists (select from q_data.waiter w where w.queue = claim.queue and w.session_key = v_owner) then
          delete from q_data.waiter w
           where w.ctid = any(array(
                   select x.ctid from q_data.waiter x
                    where x.queue = claim.queue and x.session_key = v_owner
                      for update skip locked));
        end if;
      end if;
    end if;
  end if;
end
$$;

comment on function q.claim(text, integer, interval, integer) is
  'Claims up to n (1..1000) due jobs of a queue, highest priority first, then oldest, skipping rows other claimers hold. Call it in its own short transaction (autocommit). Each job comes with a fencing token and lease_until (now + lease, default the queue''s; at most the queue''s max_lease, 22023 beyond). owner: a key from q.session_key() on a connection the caller keeps open (instant reclaim when that session ends); NULL or 0 = lease only.';

revoke all on function q.claim(text, integer, interval, integer) from public;
grant execute on function q.claim(text, integer, interval, integer) to pgq_worker;
