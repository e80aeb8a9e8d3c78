-- q.claim for a queue with a concurrency, rate or per-key rate limit (q.claim's unlimited
-- path stays as it was). Before taking jobs the claim locks as many free
-- slots as it wants jobs, SKIP LOCKED, so two claimers never wait on each
-- other and never both take one slot; each claimed job then records its
-- queue slot (freed by the triggers in sql/triggers/flow.sql) and each start
-- stamps a rate slot. Under REPEATABLE READ each slot is locked in its own
-- subtransaction and one changed after the snapshot is stepped over, as
-- q.claim_under_snapshot does for jobs: slots the snapshot shows free but a
-- newer claim took raise a serialization failure there, so the limit holds.
create or replace function q.flow_claim(
  queue   q_data.queue,
  n       integer,
  lease   interval,
  owner   integer
)
returns setof q.claimed_job
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_now       timestamptz := clock_timestamp();
  v_until     timestamptz := v_now + flow_claim.lease;
  v_rc        boolean := current_setting('transaction_isolation') = 'read committed';
  v_slots     smallint[];
  v_rates     integer[];
  v_cap       integer := flow_claim.n;
  v_slot      smallint;
  v_rate      integer;
  v_jobs      q.claimed_job[];
  v_got       integer := 0;
  v_total     integer := 0;
  v_due       timestamptz;
  v_promoted  boolean := false;
  v_rate_capped boolean := false;
begin
  -- What a limit did to this claim, for the caller (read in the same
  -- transaction; the worker's round statement reads it in its last branch):
  -- pgq.claim_blocked = '' | 'concurrency' | 'rate' | 'key_rate' (the limit
  -- gave fewer jobs than asked, or none); with 'rate' and 'key_rate',
  -- pgq.claim_retry_in = seconds until the next rate slot frees.
  perform set_config('pgq.claim_blocked', '', true);
  perform set_config('pgq.claim_retry_in', '', true);
  loop
    -- 1. Queue slots: as many free ones as jobs wanted.
    if (flow_claim.queue).concurrency is not null then
      if v_rc then
        v_slots := array(
          select s.n from q_data.queue_slot s
           where s.queue_id = (flow_claim.queue).id
             and s.n <= (flow_claim.queue).concurrency
             and s.job_id is null
           order by s.n
           limit v_cap
             for no key update skip locked);
      else
        v_slots := '{}';
        for v_slot in
          select s.n from q_data.queue_slot s
           where s.queue_id = (flow_claim.queue).id
             and s.n <= (flow_claim.queue).concurrency
             and s.job_id is null
           order by s.n
        loop
          begin
            perform from q_data.queue_slot s
              where s.queue_id = (flow_claim.queue).id and s.n = v_slot and s.job_id is null
                for no key update skip locked;
            if found then
              v_slots := v_slots || v_slot;
            end if;
          exception when serialization_failure then
            null;  -- taken or freed after our snapshot: the next one
          end;
          exit when cardinality(v_slots) >= v_cap;
        end loop;
      end if;
      if cardinality(v_slots) < v_cap then
        perform set_config('pgq.claim_blocked', 'concurrency', true);
        perform q.flow_want((flow_claim.queue).id);
      end if;
      v_cap := cardinality(v_slots);
      if v_cap = 0 then
        return;
      end if;
    end if;

    -- 2. Rate slots last used at least `per` ago, one per start.
    if (flow_claim.queue).rate is not null then
      if v_rc then
        v_rates := array(
          select r.n from q_data.rate_slot r
           where r.queue_id = (flow_claim.queue).id
             and r.n <= (flow_claim.queue).rate
             and r.used_at <= v_now - (flow_claim.queue).per
           order by r.used_at
           limit v_cap
             for no key update skip locked);
      else
        v_rates := '{}';
        for v_rate in
          select r.n from q_data.rate_slot r
           where r.queue_id = (flow_claim.queue).id
             and r.n <= (flow_claim.queue).rate
             and r.used_at <= v_now - (flow_claim.queue).per
           order by r.used_at
        loop
          begin
            perform from q_data.rate_slot r
              where r.queue_id = (flow_claim.queue).id and r.n = v_rate
                and r.used_at <= v_now - (flow_claim.queue).per
                for no key update skip locked;
            if found then
              v_rates := v_rates || v_rate;
            end if;
          exception when serialization_failure then
            null;
          end;
          exit when cardinality(v_rates) >= v_cap;
        end loop;
      end if;
      if cardinality(v_rates) < v_cap then
        v_rate_capped := true;
      end if;
      v_cap := cardinality(v_rates);
      exit when v_cap = 0;
    end if;

    -- 3. At most v_cap jobs; the i-th claimed takes the i-th slot. A queue
    -- with a per-key rate picks them one by one (sql/internal/flow_claim_keyed.sql).
    if (flow_claim.queue).key_rate is not null then
      v_jobs := array(select c from q.flow_claim_keyed(flow_claim.queue, v_cap, v_now, v_until, flow_claim.owner, v_slots) c);
    elsif v_rc then
      v_jobs := array(select c from q.flow_claim_jobs((flow_claim.queue).id, (flow_claim.queue).name, v_cap, v_until, flow_claim.owner, v_slots) c);
    else
      v_jobs := array(select c from q.claim_under_snapshot((flow_claim.queue).id, (flow_claim.queue).name, v_cap, v_until, flow_claim.owner) c);
    end if;
    v_got := coalesce(cardinality(v_jobs), 0);
    v_total := v_total + v_got;
    for i in 1 .. v_got loop
      if v_slots is not null and not v_rc and (flow_claim.queue).key_rate is null then
        update q_data.job j set queue_slot = v_slots[i] where j.id = (v_jobs[i]).id and j.state = 'r';
        update q_data.queue_slot s set job_id = (v_jobs[i]).id
         where s.queue_id = (flow_claim.queue).id and s.n = v_slots[i];
      end if;
      if v_rates is not null then
        update q_data.rate_slot r set used_at = v_now
         where r.queue_id = (flow_claim.queue).id and r.n = v_rates[i];
      end if;
      return next v_jobs[i];
    end loop;
    exit when v_got = v_cap or v_promoted;
    v_promoted := true;
    exit when q.promote_due((flow_claim.queue).id, v_cap - v_got) = 0;
    -- Slots taken in the first round are ours now (job_id set); the locks
    -- on unused ones stay ours until commit and are taken again if free.
    v_cap := v_cap - v_got;
  end loop;

  -- Short on a keyed queue: a listening claimer wants the NOTIFY of the next
  -- held job admitted, as q.claim's unlimited path asks.
  if v_total < flow_claim.n and (flow_claim.queue).key_concurrency is not null then
    perform q.flow_want((flow_claim.queue).id);
  end if;
  -- Short, with nothing said yet, on a queue with a per-key rate: jobs an
  -- earlier claim (perhaps another worker's) put off may be due soon; say
  -- when the first is, so a worker comes back then and not at the reaper's
  -- next promotion. The first entry of job_put_off_idx (revision 0009: until
  -- then a look at the queue's first 100 scheduled jobs, which said nothing
  -- when more than 100 delayed jobs or retries came first).
  -- retry_in is never below 0.01 s (here and below): a put-off job already
  -- due that this claim did not promote, or a slot another claim holds
  -- locked, frees within milliseconds, and "0" made clients claim in a busy
  -- loop.
  if v_total < flow_claim.n and (flow_claim.queue).key_rate is not null
     and current_setting('pgq.claim_blocked') = '' then
    select j.run_at into v_due
      from q_data.job j
     where j.queue_id = (flow_claim.queue).id and j.state = 's' and j.rate_wait
     order by j.run_at
     limit 1;
    if v_due is not null then
      perform set_config('pgq.claim_blocked', 'key_rate', true);
      perform set_config('pgq.claim_retry_in', greatest(extract(epoch from v_due - clock_timestamp()), 0.01)::text, true);
    end if;
  end if;
  if v_rate_capped and current_setting('pgq.claim_blocked') <> 'key_rate' then
    perform set_config('pgq.claim_blocked', 'rate', true);
    -- The slot used longest ago (ours included) is the next to free.
    perform set_config('pgq.claim_retry_in',
      -- (a slot never used is '-infinity': free now, not an error)
      (select greatest(extract(epoch from greatest(r.used_at, v_now - (flow_claim.queue).per)
                                          + (flow_claim.queue).per - clock_timestamp()), 0.01)::text
         from q_data.rate_slot r
        where r.queue_id = (flow_claim.queue).id and r.n <= (flow_claim.queue).rate
        order by r.used_at
        limit 1), true);
  end if;
end
$$;

comment on function q.flow_claim(q_data.queue, integer, interval, integer) is
  'q.claim''s path for a queue with a concurrency, rate or per-key rate limit: claims at most as many jobs as it could lock free slots (SKIP LOCKED), records the queue slot on each job and stamps a rate slot per start (a per-key rate: q.flow_claim_keyed); sets pgq.claim_blocked (transaction-local) to concurrency, rate or key_rate when a limit left it short.';

revoke all on function q.flow_claim(q_data.queue, integer, interval, integer) from public;
