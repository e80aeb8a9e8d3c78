-- The job selection of q.flow_claim for a queue with a per-key rate
-- (revision 0007; sql/schema/075_key_rate.sql), at any isolation level.
-- Candidates come in claim order, one at a time: a job without a key is
-- claimed; a keyed job is claimed only on a slot of its key's rate (last used
-- at least key_per ago, locked SKIP LOCKED and stamped at once, so a second
-- job of the key in this claim needs another slot). A keyed job whose key
-- has no free slot is put off: scheduled (rate_wait) for when the key's
-- window frees its next start. So the claim index holds no job a claim must
-- step over twice, and a key at its rate costs the claims of other keys at
-- most one row update per put-off job (at most key_concurrency per key and
-- window). The i-th job claimed takes queue slot slots[i] (NULL: no
-- concurrency limit).
create or replace function q.flow_claim_keyed(
  queue        q.queue,
  n            integer,
  lease_until  timestamptz,
  owner        integer,
  slots        smallint[]
)
returns setof q.claimed_job
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_rc       boolean := current_setting('transaction_isolation') = 'read committed';
  v_now      timestamptz := clock_timestamp();
  v_id       integer := (flow_claim_keyed.queue).id;
  v_rate     integer := (flow_claim_keyed.queue).key_rate;
  v_per      interval := (flow_claim_keyed.queue).key_per;
  v_cand     record;
  v_locked   boolean;
  v_slot     smallint;
  v_job      q.claimed_job;
  v_got      integer := 0;
  v_keys     text[] := '{}';     -- keys this claim found at their rate ...
  v_off      integer[] := '{}';  -- ... and how many of their jobs it put off
  v_i        integer;
  v_at       timestamptz;
  v_soonest  timestamptz;
  v_busy     boolean := false;
begin
  for v_cand in
    select w.ctid, w.concurrency_key as key
      from q.job w
     where w.queue_id = v_id
       and w.state = 'w'
     order by w.priority desc, w.run_at
  loop
    -- The job, SKIP LOCKED. (Under REPEATABLE READ one claimed after our
    -- snapshot raises a serialization failure: step over it.)
    if v_rc then
      perform from q.job j where j.ctid = v_cand.ctid and j.state = 'w' for update skip locked;
      v_locked := found;
    else
      begin
        perform from q.job j where j.ctid = v_cand.ctid and j.state = 'w' for update skip locked;
        v_locked := found;
      exception when serialization_failure then
        v_locked := false;
      end;
    end if;
    continue when not v_locked;

    -- A slot of the key's rate.
    v_slot := null;
    if v_cand.key is not null then
      for v_try in 1 .. 2 loop
        if v_rc then
          select r.n into v_slot
            from q.key_rate_slot r
           where r.queue_id = v_id and r.key = v_cand.key
             and r.n <= v_rate and r.used_at <= v_now - v_per
           order by r.used_at
           limit 1
             for no key update skip locked;
        else
          for v_i in
            select r.n from q.key_rate_slot r
             where r.queue_id = v_id and r.key = v_cand.key
               and r.n <= v_rate and r.used_at <= v_now - v_per
             order by r.used_at
          loop
            begin
              perform from q.key_rate_slot r
                where r.queue_id = v_id and r.key = v_cand.key and r.n = v_i
                  and r.used_at <= v_now - v_per
                  for no key update skip locked;
              if found then
                v_slot := v_i;
              end if;
            exception when serialization_failure then
              null;  -- used after our snapshot: the next one
            end;
            exit when v_slot is not null;
          end loop;
        end if;
        -- The key's rows are made with its key slots (q.flow_take_key_slot)
        -- or by q.configure; the reaper's sweep drops those of idle keys. A
        -- key short of rows (a sweep or a configure racing its admission)
        -- gets them here, once, and the lock is tried again.
        exit when v_slot is not null
          or (select count(*) from q.key_rate_slot r
               where r.queue_id = v_id and r.key = v_cand.key and r.n <= v_rate) >= v_rate;
        insert into q.key_rate_slot (queue_id, key, n)
        select v_id, v_cand.key, g from generate_series(1, v_rate) g
        on conflict do nothing;
      end loop;

      if v_slot is null then
        -- Put off: the i-th job of the key this claim puts off waits for the
        -- key's i-th next start (the slots' stamps in order, plus key_per
        -- for each round of them), so a key with k admitted jobs is not put
        -- off k times per window.
        v_i := coalesce(v_off[array_position(v_keys, v_cand.key)], 0);
        select r.used_at + v_per * (v_i / v_rate + 1) into v_at
          from q.key_rate_slot r
         where r.queue_id = v_id and r.key = v_cand.key and r.n <= v_rate
         order by r.used_at
         limit 1 offset v_i % v_rate;
        if v_at is null or v_at <= v_now then
          -- A free slot another claim holds locked right now: the job stays
          -- waiting for the next claim.
          v_busy := true;
          continue;
        end if;
        update q.job j
           set state = 's',
               run_at = v_at,
               rate_wait = true
         where j.ctid = v_cand.ctid;
        if array_position(v_keys, v_cand.key) is null then
          v_keys := v_keys || v_cand.key;
          v_off := v_off || 1;
        else
          v_off[array_position(v_keys, v_cand.key)] := v_i + 1;
        end if;
        v_soonest := least(v_soonest, v_at);
        continue;
      end if;
      update q.key_rate_slot r
         set used_at = v_now
       where r.queue_id = v_id and r.key = v_cand.key and r.n = v_slot;
    end if;

    -- Claimed, with the next queue slot.
    update q.job j
       set state = 'r',
           attempt = j.attempt + 1,
           token = gen_random_uuid(),
           lease_until = flow_claim_keyed.lease_until,
           owner = flow_claim_keyed.owner,
           queue_slot = flow_claim_keyed.slots[v_got + 1],
           rate_wait = null
     where j.ctid = v_cand.ctid
    returning j.id, (flow_claim_keyed.queue).name, j.payload, j.attempt::integer,
              coalesce(j.crashes, 0)::integer, j.priority::integer, j.token, j.lease_until
      into v_job;
    if flow_claim_keyed.slots is not null then
      update q.queue_slot s
         set job_id = v_job.id
       where s.queue_id = v_id and s.n = flow_claim_keyed.slots[v_got + 1];
    end if;
    v_got := v_got + 1;
    return next v_job;
    exit when v_got >= flow_claim_keyed.n;
  end loop;

  -- Short because of key rates: say when to look again (pgq.claim_blocked
  -- and pgq.claim_retry_in, as q.flow_claim does for the queue's rate).
  if v_got < flow_claim_keyed.n and (v_soonest is not null or v_busy) then
    perform set_config('pgq.claim_blocked', 'key_rate', true);
    perform set_config('pgq.claim_retry_in',
      case when v_busy then '0'
           else greatest(extract(epoch from v_soonest - clock_timestamp()), 0)::text end, true);
  end if;
end
$$;

comment on function q.flow_claim_keyed(q.queue, integer, timestamptz, integer, smallint[]) is
  'q.flow_claim''s job selection on a queue with a per-key rate: claims up to n waiting jobs in claim order, each keyed one on a free slot of its key''s rate (stamped), the i-th taking queue slot slots[i]; a keyed job whose key is at its rate is put off (state s, rate_wait) until the key''s next start is allowed. Sets pgq.claim_blocked = key_rate when that left it short.';

revoke all on function q.flow_claim_keyed(q.queue, integer, timestamptz, integer, smallint[]) from public;
