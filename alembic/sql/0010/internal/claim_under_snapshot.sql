-- One claim statement, four copies: q.claim, q.claim_under_snapshot,
-- q.flow_claim_jobs and q.flow_claim_keyed each write their UPDATE inline, on
-- purpose. Sharing it through one more plpgsql function measured +23 µs per
-- claim (265 vs 242 µs, +9.5 %; `make bench-profile` on a quiet machine,
-- 2026-12-05: design.md#one-claim-statement-four-copies). Change all four
-- together.

-- q.claim for callers in REPEATABLE READ or SERIALIZABLE. Their snapshot is
-- fixed, so locking a row another worker claimed after it was taken raises a
-- serialization failure (the DBOS article: at ~1000 claims/s most dequeues
-- failed; design.md#read-committed-not-repeatable-read).
-- Here each candidate is locked in its own subtransaction and stepped over on
-- that error, so the caller gets jobs instead of a failure storm.
create or replace function q.claim_under_snapshot(
  queue_id     integer,
  queue        text,
  n            integer,
  lease_until  timestamptz,
  owner        integer
)
returns setof q.claimed_job
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_ctid  tid;
  v_job   q.claimed_job;
  v_got   integer := 0;
begin
  for v_ctid in
    select j.ctid
      from q_data.job j
     where j.queue_id = claim_under_snapshot.queue_id
       and j.state = 'w'
     order by j.priority desc, j.run_at
  loop
    begin
      perform from q_data.job j where j.ctid = v_ctid for update skip locked;
      if found then
        update q_data.job j
           set state = 'r',
               attempt = j.attempt + 1,
               token = gen_random_uuid(),
               lease_until = claim_under_snapshot.lease_until,
               owner = claim_under_snapshot.owner
         where j.ctid = v_ctid
        returning j.id, claim_under_snapshot.queue, j.payload, j.attempt::integer,
                  coalesce(j.crashes, 0)::integer, j.priority::integer,
                  j.token, j.lease_until
          into v_job;
        v_got := v_got + 1;
        return next v_job;
      end if;
    exception when serialization_failure then
      null;  -- claimed by someone else after our snapshot: the next one
    end;
    exit when v_got >= claim_under_snapshot.n;
  end loop;
end
$$;

comment on function q.claim_under_snapshot(integer, text, integer, timestamptz, integer) is
  'The claim path for REPEATABLE READ / SERIALIZABLE callers: steps over rows claimed after the snapshot instead of raising serialization failures.';

revoke all on function q.claim_under_snapshot(integer, text, integer, timestamptz, integer) from public;
