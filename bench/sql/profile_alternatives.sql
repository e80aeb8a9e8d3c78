-- Ad-hoc alternatives to pgq's claim path, measured by `make bench-profile`
-- beside q.claim in the same database. Nothing here is part of pgq: these are
-- experiments for a future revision (sql/ is the only SQL pgq ships).
create schema alt;

-- 1. q.claim's statement, inline, returning only what seed 001's returns.
create function alt.claim_narrow_return(queue_id integer)
returns bigint language sql volatile as $$
  update q.job j
     set state = 'r', attempt = j.attempt + 1, token = gen_random_uuid(),
         lease_until = clock_timestamp() + interval '5 minutes', owner = null
   where j.ctid = any(array(
           select w.ctid from q.job w
            where w.queue_id = claim_narrow_return.queue_id and w.state = 'w'
            order by w.priority desc, w.run_at
            limit 1 for update skip locked))
  returning j.id
$$;

-- 2. Only the state changes: what writing token, lease, owner, attempt costs.
create function alt.claim_state_only(queue_id integer)
returns bigint language sql volatile as $$
  update q.job j set state = 'r'
   where j.ctid = any(array(
           select w.ctid from q.job w
            where w.queue_id = claim_state_only.queue_id and w.state = 'w'
            order by w.priority desc, w.run_at
            limit 1 for update skip locked))
  returning j.id
$$;

-- 3. A HOT-friendly claim: a copy of q.job whose claim index has no predicate
-- on a column the claim writes, so the claim UPDATE touches no indexed column
-- and can stay on its page (a heap-only tuple: no new index entry, no dead
-- one). Claimed rows stay in the claim index until completed, so a claim
-- skips them by lease (the seed-004 lease pattern); completion deletes.
create table alt.job (like q.job including defaults);
alter table alt.job set (fillfactor = 80, autovacuum_vacuum_scale_factor = 0.02,
  autovacuum_vacuum_threshold = 1000, autovacuum_vacuum_cost_delay = 0);
create index job_claim_hot_idx on alt.job (queue_id, priority desc, run_at);

create function alt.claim_hot(queue_id integer)
returns table (id bigint, job_ctid tid, token uuid) language sql volatile as $$
  update alt.job j
     set lease_until = clock_timestamp() + interval '5 minutes', attempt = j.attempt + 1,
         token = gen_random_uuid()
   where j.ctid = any(array(
           select w.ctid from alt.job w
            where w.queue_id = claim_hot.queue_id and w.lease_until is null
            order by w.priority desc, w.run_at
            limit 1 for update skip locked))
  returning j.id, j.ctid, j.token
$$;

create function alt.complete_hot_by_ctid(job_ctid tid, token uuid)
returns boolean language sql volatile as $$
  with gone as (delete from alt.job j where j.ctid = complete_hot_by_ctid.job_ctid
                  and j.token = complete_hot_by_ctid.token returning 1)
  select exists (select from gone)
$$;

-- 4. Finish by DELETE of the claimed row found by ctid (the claim returned it),
-- not through job_running_idx; the token still fences.
create function alt.complete_by_ctid(job_ctid tid, token uuid)
returns boolean language sql volatile as $$
  with gone as (delete from q.job j where j.ctid = complete_by_ctid.job_ctid
                  and j.state = 'r' and j.token = complete_by_ctid.token returning 1)
  select exists (select from gone)
$$;

create function alt.claim_ctid(queue_id integer)
returns table (id bigint, job_ctid tid, token uuid) language sql volatile as $$
  update q.job j
     set state = 'r', attempt = j.attempt + 1, token = gen_random_uuid(),
         lease_until = clock_timestamp() + interval '5 minutes', owner = null
   where j.ctid = any(array(
           select w.ctid from q.job w
            where w.queue_id = claim_ctid.queue_id and w.state = 'w'
            order by w.priority desc, w.run_at
            limit 1 for update skip locked))
  returning j.id, j.ctid, j.token
$$;

-- 5. Complete the previous job and claim the next in one statement (one
-- round trip, one commit per job instead of two).
create function alt.complete_and_claim(prev_id bigint, prev_token uuid, queue_id integer)
returns table (id bigint, token uuid) language sql volatile as $$
  with done as (
    delete from q.job d where d.id = complete_and_claim.prev_id and d.state = 'r'
       and d.token = complete_and_claim.prev_token
  )
  update q.job j
     set state = 'r', attempt = j.attempt + 1, token = gen_random_uuid(),
         lease_until = clock_timestamp() + interval '5 minutes', owner = null
   where j.ctid = any(array(
           select w.ctid from q.job w
            where w.queue_id = complete_and_claim.queue_id and w.state = 'w'
            order by w.priority desc, w.run_at
            limit 1 for update skip locked))
  returning j.id, j.token
$$;
