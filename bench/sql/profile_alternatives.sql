-- Ad-hoc alternatives to pgq's claim path, measured by `make bench-profile`
-- beside q.claim in the same database. Nothing here is part of pgq: these are
-- experiments for a future revision (sql/ is the only SQL pgq ships).
create schema alt;

-- 1. q.claim's statement, inline, returning only what the claim-rate article's claim returns.
create function alt.claim_narrow_return(queue_id integer)
returns bigint language sql volatile as $$
  update q_data.job j
     set state = 'r', attempt = j.attempt + 1, token = gen_random_uuid(),
         lease_until = clock_timestamp() + interval '5 minutes', owner = null
   where j.ctid = any(array(
           select w.ctid from q_data.job w
            where w.queue_id = claim_narrow_return.queue_id and w.state = 'w'
            order by w.priority desc, w.run_at
            limit 1 for update skip locked))
  returning j.id
$$;

-- 2. Only state and token change (the CHECK running_job_has_claim needs the token): what
-- writing lease, owner and attempt costs.
create function alt.claim_state_only(queue_id integer)
returns bigint language sql volatile as $$
  update q_data.job j set state = 'r', token = gen_random_uuid()
   where j.ctid = any(array(
           select w.ctid from q_data.job w
            where w.queue_id = claim_state_only.queue_id and w.state = 'w'
            order by w.priority desc, w.run_at
            limit 1 for update skip locked))
  returning j.id
$$;

-- 3. A HOT-friendly claim: a copy of q_data.job whose claim index has no predicate
-- on a column the claim writes, so the claim UPDATE touches no indexed column
-- and can stay on its page (a heap-only tuple: no new index entry, no dead
-- one). Claimed rows stay in the claim index until completed, so a claim
-- skips them by lease (the seed-004 lease pattern); completion deletes.
create table alt.job (like q_data.job including defaults including identity);
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
  with gone as (delete from q_data.job j where j.ctid = complete_by_ctid.job_ctid
                  and j.state = 'r' and j.token = complete_by_ctid.token returning 1)
  select exists (select from gone)
$$;

create function alt.claim_ctid(queue_id integer)
returns table (id bigint, job_ctid tid, token uuid) language sql volatile as $$
  update q_data.job j
     set state = 'r', attempt = j.attempt + 1, token = gen_random_uuid(),
         lease_until = clock_timestamp() + interval '5 minutes', owner = null
   where j.ctid = any(array(
           select w.ctid from q_data.job w
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
    delete from q_data.job d where d.id = complete_and_claim.prev_id and d.state = 'r'
       and d.token = complete_and_claim.prev_token
  )
  update q_data.job j
     set state = 'r', attempt = j.attempt + 1, token = gen_random_uuid(),
         lease_until = clock_timestamp() + interval '5 minutes', owner = null
   where j.ctid = any(array(
           select w.ctid from q_data.job w
            where w.queue_id = complete_and_claim.queue_id and w.state = 'w'
            order by w.priority desc, w.run_at
            limit 1 for update skip locked))
  returning j.id, j.token
$$;

-- 6. q.claim's hot path as one SQL-language function: no plpgsql interpreter,
-- no RETURN QUERY tuplestore, no loop; the queue lookup is a join. Keeps the
-- fencing token, the lease and the session's liveness key (current_setting
-- read inline; a session without a key yet would take the plpgsql path).
-- Paused queues claim nothing; the scheduled-job promotion is left out. The
-- queue id is a scalar subquery, not a join, so the claim index's order serves
-- the ORDER BY (a join planned a sort of the whole backlog).
create function alt.claim_sql(queue text, n integer default 1)
returns setof q.claimed_job
language sql volatile security definer
set search_path = pg_catalog, pg_temp
as $$
  update q_data.job j
     set state = 'r', attempt = j.attempt + 1, token = gen_random_uuid(),
         lease_until = clock_timestamp() + (select x.lease from q_data.queue x where x.name = claim_sql.queue),
         owner = nullif(current_setting('pgq.session_key', true), '')::integer
   where j.ctid = any(array(
           select w.ctid from q_data.job w
            where w.queue_id = (select x.id from q_data.queue x where x.name = claim_sql.queue and not x.paused)
              and w.state = 'w'
            order by w.priority desc, w.run_at
            limit claim_sql.n for update skip locked))
  returning j.id, claim_sql.queue, j.payload, j.attempt::integer, coalesce(j.crashes, 0)::integer,
            j.priority::integer, j.token, j.lease_until
$$;

-- 7. The same SQL function without its SET clause: what the per-call GUC
-- save and restore of `set search_path` costs (the body is schema-qualified).
create function alt.claim_sql_noset(queue text, n integer default 1)
returns setof q.claimed_job
language sql volatile security definer
as $$
  update q_data.job j
     set state = 'r', attempt = j.attempt + 1, token = gen_random_uuid(),
         lease_until = pg_catalog.clock_timestamp()
                       + (select x.lease from q_data.queue x where x.name = claim_sql_noset.queue),
         owner = nullif(pg_catalog.current_setting('pgq.session_key', true), '')::integer
   where j.ctid = any(array(
           select w.ctid from q_data.job w
            where w.queue_id = (select x.id from q_data.queue x where x.name = claim_sql_noset.queue and not x.paused)
              and w.state = 'w'
            order by w.priority desc, w.run_at
            limit claim_sql_noset.n for update skip locked))
  returning j.id, claim_sql_noset.queue, j.payload, j.attempt::integer, coalesce(j.crashes, 0)::integer,
            j.priority::integer, j.token, j.lease_until
$$;

-- 8. q.claim reached through one more plpgsql function, as an internal
-- function is (set search_path, RETURN QUERY, not security definer): what one
-- claim statement shared by q.claim, q.claim_under_snapshot,
-- q.flow_claim_jobs and q.flow_claim_keyed would add to every claim.
create function alt.claim_nested(queue text, n integer default 1)
returns setof q.claimed_job
language plpgsql volatile
set search_path = pg_catalog, pg_temp
as $$
begin
  return query select * from q.claim(claim_nested.queue, claim_nested.n);
end
$$;
