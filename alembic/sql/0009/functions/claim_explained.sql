-- q.claim for a client that sends one statement (autocommit, a pool, any
-- driver): the claimed jobs with why the claim came back short and when to
-- look again, in the statement's own rows. The claim itself is q.claim's
-- (called here, not written again); the reason is what q.claim's limits
-- left in pgq.claim_blocked / pgq.claim_retry_in, which only a caller in the
-- same transaction could read until revision 0009, plus the two reasons
-- q.claim's paths do not record: a paused queue and jobs held by their
-- concurrency key.
create or replace function q.claim_explained(
  queue  text,
  n      integer  default 1,
  lease  interval default null,
  owner  integer  default null
)
returns setof q.explained_claim
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_jobs     q.claimed_job[];
  v_got      integer;
  v_blocked  text;
  v_retry    text;
  v_queue    q_data.queue;
begin
  -- q.claim sets the settings only on a limited queue: blank them first, so
  -- an earlier claim in this transaction cannot speak for this one.
  perform set_config('pgq.claim_blocked', '', true);
  perform set_config('pgq.claim_retry_in', '', true);
  -- (q.claim checks the arguments and raises 22023 before it writes anything)
  v_jobs := array(select c from q.claim(claim_explained.queue, claim_explained.n,
                                        claim_explained.lease, claim_explained.owner) c);
  v_got := cardinality(v_jobs);
  v_blocked := nullif(current_setting('pgq.claim_blocked', true), '');
  v_retry := nullif(current_setting('pgq.claim_retry_in', true), '');

  if v_got < claim_explained.n and v_blocked is null then
    select * into v_queue from q_data.queue qq where qq.name = claim_explained.queue;
    if v_queue.paused then
      v_blocked := 'paused';
    elsif v_queue.key_concurrency is not null
          and exists (select from q_data.job j where j.queue_id = v_queue.id and j.state = 'h') then
      -- Jobs held until a running job of their key ends: no time is known
      -- (retry_in NULL); a listening claimer is notified when one is admitted.
      v_blocked := 'key_concurrency';
    end if;
  end if;

  if v_got = 0 then
    -- One row even when nothing was claimed: the reason is the answer.
    return next row(null, null, null, null, null, null, null, null, v_blocked,
                    case when v_retry is not null then make_interval(secs => v_retry::double precision) end
                   )::q.explained_claim;
    return;
  end if;
  return query
    select j.id, j.queue, j.payload, j.attempt, j.crashes, j.priority, j.token, j.lease_until,
           v_blocked,
           case when v_retry is not null then make_interval(secs => v_retry::double precision) end
      from unnest(v_jobs) j;  -- in claim order, as q.claim returned them
end
$$;

comment on function q.claim_explained(text, integer, interval, integer) is
  'q.claim in one statement for any client: the claimed jobs (as q.claim, same arguments, same errors) with blocked (why fewer than n came back: concurrency, key_concurrency, rate, key_rate or paused; NULL when only an empty queue stopped it) and retry_in (with rate or key_rate: when the limit lets the next job start, never zero; NULL otherwise) on every row. Always at least one row: a claim that got no job returns one row whose job columns are NULL.';

revoke all on function q.claim_explained(text, integer, interval, integer) from public;
grant execute on function q.claim_explained(text, integer, interval, integer) to pgq_worker;
