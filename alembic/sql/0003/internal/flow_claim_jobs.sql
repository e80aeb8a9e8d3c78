-- The claim statement of q.claim's READ COMMITTED path, for q.flow_claim,
-- which has locked one free queue slot per job it may take (slots; NULL on
-- a queue with a rate limit only). The i-th job claimed records the i-th
-- slot and the slot its job, in this one statement. Keep the job selection
-- the same as q.claim's: pgtap/flow/limited_claim_keeps_claim_order.sql.
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
begin
  return query
    with claimed as (
      update q.job j
         set state = 'r',
             attempt = j.attempt + 1,
             token = gen_random_uuid(),
             lease_until = flow_claim_jobs.lease_until,
             owner = flow_claim_jobs.owner,
             queue_slot = flow_claim_jobs.slots[x.i]
        from (select w.ctid, row_number() over () as i
                from (select w.ctid
                        from q.job w
                       where w.queue_id = flow_claim_jobs.queue_id
                         and w.state = 'w'
                       order by w.priority desc, w.run_at
                       limit flow_claim_jobs.n
                         for update skip locked) w) x
       where j.ctid = x.ctid
      returning j.id, j.payload, j.attempt, j.crashes, j.priority, j.token, j.lease_until, j.queue_slot, x.i
    ), taken as (
      update q.queue_slot s
         set job_id = c.id
        from claimed c
       where s.queue_id = flow_claim_jobs.queue_id
         and s.n = c.queue_slot
    )
    select c.id, flow_claim_jobs.queue, c.payload, c.attempt::integer,
           coalesce(c.crashes, 0)::integer, c.priority::integer, c.token, c.lease_until
      from claimed c
     order by c.i;  -- claim order, as q.claim returns them
end
$$;

comment on function q.flow_claim_jobs(integer, text, integer, timestamptz, integer, smallint[]) is
  'Claims up to n waiting jobs of a queue at READ COMMITTED, as q.claim does, the i-th taking queue slot slots[i]; for q.flow_claim.';

revoke all on function q.flow_claim_jobs(integer, text, integer, timestamptz, integer, smallint[]) from public;
