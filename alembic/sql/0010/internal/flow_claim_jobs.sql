-- One claim statement, four copies: q.claim, q.claim_under_snapshot,
-- q.flow_claim_jobs and q.flow_claim_keyed each write their UPDATE inline, on
-- purpose. Sharing it through one more plpgsql function measured +23 µs per
-- claim (265 vs 242 µs, +9.5 %; `make bench-profile` on a quiet machine,
-- 2026-12-05: design.md#one-claim-statement-four-copies). Change all four
-- together.

-- The claim statement of q.claim's READ COMMITTED path, for q.flow_claim,
-- which has locked one free queue slot per job it may take (slots, in
-- ascending order; NULL on a queue with a rate limit only). The i-th job in
-- claim order records the i-th slot, and the slot its job, in one statement.
-- Rows are picked by ctid = any(array) as in q.claim: a join on ctid was
-- planned as a hash join over a sequential scan of q_data.job (3 ms at 20,000
-- jobs, 615 claims/s in the flow bench). Keep the job selection the same as
-- q.claim's: pgtap/flow/limited_claim_keeps_claim_order.sql.
create or replace function q.flow_claim_jobs(
  queue_id     integer,
  queue        text,
  n            integer,
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
  v_ctids tid[];
begin
  v_ctids := array(
    select w.ctid
      from q_data.job w
     where w.queue_id = flow_claim_jobs.queue_id
       and w.state = 'w'
     order by w.priority desc, w.run_at
     limit flow_claim_jobs.n
       for update skip locked);
  return query
    with claimed as (
      update q_data.job j
         set state = 'r',
             attempt = j.attempt + 1,
             token = gen_random_uuid(),
             lease_until = flow_claim_jobs.lease_until,
             owner = flow_claim_jobs.owner,
             -- (j.ctid is the row version being updated, so its place in v_ctids)
             queue_slot = flow_claim_jobs.slots[array_position(v_ctids, j.ctid)]
       where j.ctid = any(v_ctids)
      returning j.id, j.payload, j.attempt, j.crashes, j.priority, j.run_at, j.token, j.lease_until, j.queue_slot
    ), taken as (
      update q_data.queue_slot s
         set job_id = c.id
        from claimed c
       where s.queue_id = flow_claim_jobs.queue_id
         and s.n = c.queue_slot
    )
    select c.id, flow_claim_jobs.queue, c.payload, c.attempt::integer,
           coalesce(c.crashes, 0)::integer, c.priority::integer, c.token, c.lease_until
      from claimed c
     order by c.priority desc, c.run_at, c.id;  -- claim order, as q.claim returns them
end
$$;

comment on function q.flow_claim_jobs(integer, text, integer, timestamptz, integer, smallint[]) is
  'Claims up to n waiting jobs of a queue at READ COMMITTED, as q.claim does, the i-th taking queue slot slots[i]; for q.flow_claim.';

revoke all on function q.flow_claim_jobs(integer, text, integer, timestamptz, integer, smallint[]) from public;
