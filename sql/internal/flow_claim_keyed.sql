-- One claim statement, four copies: q.claim, q.claim_under_snapshot,
-- q.flow_claim_jobs and q.flow_claim_keyed each write their UPDATE inline, on
-- purpose. Sharing it through one more plpgsql function measured +23 µs per
-- claim (265 vs 242 µs, +9.5 %; `make bench-profile` on a quiet machine,
-- 2026-12-05: design.md#one-claim-statement-four-copies). Change all four
-- together.

-- The job selection of q.flow_claim for a queue with a per-key rate
-- (revision 0007; sql/schema/075_key_rate.sql), at any isolation level.
-- Candidates come in claim order: a job without a key is claimed; a keyed
-- job is claimed only on a slot of its key's rate (last used at least
-- key_per before started_at, taken SKIP LOCKED and stamped with started_at
-- in one statement, so a second job of the key in this claim needs another
-- slot, and the stamp is the claim's time, lease_until - lease). A keyed job
-- whose key has no free slot is put off: scheduled (rate_wait) for when the
-- key's window frees its next start. So the claim index holds no job a
-- claim must step over twice, and a key at its rate costs the claims of
-- other keys at most one row update per put-off job (at most key_concurrency
-- per key and window). The jobs taken are claimed in one statement at the
-- end, the i-th (in claim order) on queue slot slots[i] (NULL: no
-- concurrency limit).
create or replace function q.flow_claim_keyed(
  queue        q_data.queue,
  n            integer,
  started_at   timestamptz,
  lease_until  timestamptz,
  owner        integer,
  slots        smallint[]
)
returns setof q.claimed_job
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
set plan_cache_mode = force_generic_plan
as $$
declare
  v_rc       boolean := current_setting('transaction_isolation') = 'read committed';
  v_now      timestamptz := flow_claim_keyed.started_at;
  v_id       integer := (flow_claim_keyed.queue).id;
  v_rate     integer := (flow_claim_keyed.queue).key_rate;
  v_per      interval := (flow_claim_keyed.queue).key_per;
  -- Candidates are locked a batch at a time (the first entries of the claim
  -- index, as q.claim does); a batch without a LIMIT was planned as a sort
  -- of every waiting job of the queue (0.4 ms per claim at 1,000).
  v_batch    integer := flow_claim_keyed.n + 16;
  v_ctids    tid[];
  v_keys     text[];
  v_fetched  integer;
  v_take     tid[] := '{}';   -- jobs this claim starts, in claim order
  v_passed   tid[] := '{}';   -- locked but neither started nor put off
  v_locked   boolean;
  v_slot     smallint;
  v_offkeys  text[] := '{}';     -- keys this claim found at their rate ...
  v_off      integer[] := '{}';  -- ... and how many of their jobs it put off
  v_i        integer;
  v_at       timestamptz;
  v_soonest  timestamptz;
  v_busy     boolean := false;
  v_cand     record;
begin
  loop
    if v_rc then
      -- (ctid breaks ties, so both arrays come in the same order)
      select coalesce(array_agg(c.ctid order by c.priority desc, c.run_at, c.ctid), '{}'),
             coalesce(array_agg(c.concurrency_key order by c.priority desc, c.run_at, c.ctid), '{}')
        into v_ctids, v_keys
        from (select w.ctid, w.concurrency_key, w.priority, w.run_at
                from q_data.job w
               where w.queue_id = v_id
                 and w.state = 'w'
                 and w.ctid <> all(v_passed || v_take)
               order by w.priority desc, w.run_at
               limit v_batch
                 for update skip locked) c;
    else
      -- REPEATABLE READ: each candidate locked in its own subtransaction, one
      -- claimed after our snapshot stepped over (as q.claim_under_snapshot).
      v_ctids := '{}';
      v_keys := '{}';
      for v_cand in
        select w.ctid, w.concurrency_key as key
          from q_data.job w
         where w.queue_id = v_id
           and w.state = 'w'
           and w.ctid <> all(v_passed || v_take)
         order by w.priority desc, w.run_at
         limit v_batch
      loop
        begin
          perform from q_data.job j where j.ctid = v_cand.ctid and j.state = 'w' for update skip locked;
          v_locked := found;
        exception when serialization_failure then
          v_locked := false;
        end;
        if v_locked then
          v_ctids := v_ctids || v_cand.ctid;
          v_keys := v_keys || v_cand.key;
        else
          v_passed := v_passed || v_cand.ctid;
        end if;
      end loop;
    end if;
    v_fetched := cardinality(v_ctids);

    for i in 1 .. v_fetched loop
      exit when cardinality(v_take) >= flow_claim_keyed.n;
      if v_keys[i] is null then
        v_take := v_take || v_ctids[i];
        continue;
      end if;

      -- A slot of the key's rate, stamped at once.
      v_slot := null;
      for v_try in 1 .. 2 loop
        if v_rc then
          update q_data.key_rate_slot r
             set used_at = v_now
           where (r.queue_id, r.key, r.n) = (
                   select x.queue_id, x.key, x.n
                     from q_data.key_rate_slot x
                    where x.queue_id = v_id and x.key = v_keys[i]
                      and x.n <= v_rate and x.used_at <= v_now - v_per
                    order by x.used_at
                    limit 1
                      for no key update skip locked)
          returning r.n into v_slot;
        else
          for v_i in
            select x.n from q_data.key_rate_slot x
             where x.queue_id = v_id and x.key = v_keys[i]
               and x.n <= v_rate and x.used_at <= v_now - v_per
             order by x.used_at
          loop
            begin
              perform from q_data.key_rate_slot r
                where r.queue_id = v_id and r.key = v_keys[i] and r.n = v_i
                  and r.used_at <= v_now - v_per
                  for no key update skip locked;
              if found then
                update q_data.key_rate_slot r set used_at = v_now
                 where r.queue_id = v_id and r.key = v_keys[i] and r.n = v_i;
                v_slot := v_i;
              end if;
            exception when serialization_failure then
              null;  -- used after our snapshot: the next one
            end;
            exit when v_slot is not null;
          end loop;
        end if;
        -- The key's rows are made one at a time, as starts need them
        -- (revision 0008; sql/schema/075_key_rate.sql): none free and fewer
        -- than key_rate, the next one is made (never waiting on another claim
        -- making it) and the slot tried again. Only by a claim younger than
        -- 10 s: the sweep deletes rows stamped more than key_per + 10 s ago,
        -- so a row made again is stamped at least key_per after the start its
        -- number last recorded.
        exit when v_slot is not null or clock_timestamp() - v_now > interval '10 seconds';
        v_i := (select g::smallint
                  from generate_series(1, v_rate) g
                 where not exists (select from q_data.key_rate_slot r
                                    where r.queue_id = v_id and r.key = v_keys[i] and r.n = g)
                 order by g
                 limit 1);
        exit when v_i is null or not q.flow_add_key_rate_slot(v_id, v_keys[i], v_i::smallint);
      end loop;
      if v_slot is not null then
        v_take := v_take || v_ctids[i];
        continue;
      end if;

      -- Put off: the i-th job of the key this claim puts off waits for the
      -- key's i-th next start (the slots' stamps in order, plus key_per for
      -- each round of them), so a key with k admitted jobs is not put off k
      -- times per window.
      v_i := coalesce(v_off[array_position(v_offkeys, v_keys[i])], 0);
      v_at := null;
      -- (a key with fewer than key_rate rows is not at its rate: a row
      -- another claim is making, or a free one it holds locked)
      if (select count(*) from q_data.key_rate_slot r
           where r.queue_id = v_id and r.key = v_keys[i] and r.n <= v_rate) >= v_rate then
      select r.used_at + v_per * (v_i / v_rate + 1) into v_at
        from q_data.key_rate_slot r
       where r.queue_id = v_id and r.key = v_keys[i] and r.n <= v_rate
       order by r.used_at
       limit 1 offset v_i % v_rate;
      end if;
      if v_at is null or v_at <= clock_timestamp() then
        -- A free slot another claim holds locked right now: the job stays
        -- waiting for the next claim.
        v_busy := true;
        v_passed := v_passed || v_ctids[i];
        continue;
      end if;
      update q_data.job j
         set state = 's',
             run_at = v_at,
             rate_wait = true
       where j.ctid = v_ctids[i];
      if array_position(v_offkeys, v_keys[i]) is null then
        v_offkeys := v_offkeys || v_keys[i];
        v_off := v_off || 1;
      else
        v_off[array_position(v_offkeys, v_keys[i])] := v_i + 1;
      end if;
      v_soonest := least(v_soonest, v_at);
    end loop;
    -- (taken jobs are still waiting until the statement below: the next batch steps over them too)
    exit when cardinality(v_take) >= flow_claim_keyed.n or v_fetched < v_batch;
  end loop;

  -- The jobs taken, claimed in one statement (as q.flow_claim_jobs), the
  -- i-th on queue slot slots[i].
  return query
    with claimed as (
      update q_data.job j
         set state = 'r',
             attempt = j.attempt + 1,
             token = gen_random_uuid(),
             lease_until = flow_claim_keyed.lease_until,
             owner = flow_claim_keyed.owner,
             queue_slot = flow_claim_keyed.slots[array_position(v_take, j.ctid)],
             rate_wait = null
       where j.ctid = any(v_take)
      returning j.id, j.payload, j.attempt, j.crashes, j.priority, j.run_at, j.token, j.lease_until, j.queue_slot
    ), taken as (
      update q_data.queue_slot s
         set job_id = c.id
        from claimed c
       where s.queue_id = v_id
         and s.n = c.queue_slot
    )
    select c.id, (flow_claim_keyed.queue).name, c.payload, c.attempt::integer,
           coalesce(c.crashes, 0)::integer, c.priority::integer, c.token, c.lease_until
      from claimed c
     order by c.priority desc, c.run_at, c.id;  -- claim order, as q.claim returns them

  -- Short because of key rates: say when to look again (pgq.claim_blocked
  -- and pgq.claim_retry_in, as q.flow_claim does for the queue's rate).
  -- Never 0 (until 0009 a slot another claim held locked said "0", and a
  -- client that trusted it claimed in a busy loop): at least 0.01 s, the
  -- time that claim takes to commit.
  if cardinality(v_take) < flow_claim_keyed.n and (v_soonest is not null or v_busy) then
    perform set_config('pgq.claim_blocked', 'key_rate', true);
    perform set_config('pgq.claim_retry_in',
      case when v_busy then '0.01'
           else greatest(extract(epoch from v_soonest - clock_timestamp()), 0.01)::text end, true);
  end if;
end
$$;

comment on function q.flow_claim_keyed(q_data.queue, integer, timestamptz, timestamptz, integer, smallint[]) is
  'q.flow_claim''s job selection on a queue with a per-key rate: claims up to n waiting jobs in claim order, each keyed one on a free slot of its key''s rate (stamped started_at), the i-th taking queue slot slots[i]; a keyed job whose key is at its rate is put off (state s, rate_wait) until the key''s next start is allowed. Sets pgq.claim_blocked = key_rate when that left it short.';

revoke all on function q.flow_claim_keyed(q_data.queue, integer, timestamptz, timestamptz, integer, smallint[]) from public;
