create or replace function q.explain(id bigint)
returns table (code text, message text, detail jsonb)
language plpgsql
stable
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_now      timestamptz := clock_timestamp();
  v_job      q_data.job;
  v_done     q_data.job_history;
  v_queue    q_data.queue;
  v_last     jsonb;
  v_holder   record;
  v_higher   bigint;
  v_older    bigint;
  v_limit    constant integer := 10000;
  v_limited  boolean;
begin
  if explain.id is null then
    raise exception 'job id must not be null' using errcode = '22004';
  end if;

  -- Running jobs and finished ones are found by index; a waiting or scheduled
  -- job has no id index (see q_data.job: one index entry per waiting job), so that
  -- last lookup reads the hot table.
  select j.* into v_job from q_data.job j where j.id = explain.id and j.state = 'r';
  if not found then
    select h.* into v_done from q_data.job_history h where h.id = explain.id;
    if found then
      select qq.* into v_queue from q_data.queue qq where qq.id = v_done.queue_id;
      v_last := v_done.errors -> -1;
      return query select v_done.state,
        case v_done.state
          when 'completed' then format('completed at %s after %s attempt(s)', v_done.finished_at, v_done.attempt)
          when 'cancelled' then format('cancelled at %s; q.retry(%s) puts it back', v_done.finished_at, v_done.id)
          else format('dead since %s after %s attempt(s) (%s crash(es)): %s; q.retry(%s) puts it back',
                      v_done.finished_at, v_done.attempt, coalesce(v_done.crashes, 0),
                      coalesce(left(v_last ->> 'error', 200), 'no error recorded'), v_done.id)
        end,
        jsonb_build_object('queue', v_queue.name, 'finished_at', v_done.finished_at,
                           'attempt', v_done.attempt, 'crashes', coalesce(v_done.crashes, 0),
                           'last_error', v_last, 'progress', v_done.progress);
      return;
    end if;
    select j.* into v_job from q_data.job j where j.id = explain.id;
    if not found and exists (select from q_data.job_result r where r.id = explain.id) then
      -- Completed with a result (design.md#results-and-dependencies) in a queue that keeps no history.
      return query select 'completed'::text,
        format('completed at %s after %s attempt(s); q.result(%s) reads its result', r.finished_at, r.attempt, r.id),
        jsonb_build_object('queue', qq.name, 'finished_at', r.finished_at, 'attempt', r.attempt,
                           'progress', r.progress)
        from q_data.job_result r left join q_data.queue qq on qq.id = r.queue_id
       where r.id = explain.id;
      return;
    end if;
    if not found then
      return query select 'unknown'::text,
        format('no job %s: it never existed, was completed (and the queue keeps no history), or its history passed the queue''s retention', explain.id),
        jsonb_build_object('id', explain.id);
      return;
    end if;
  end if;

  select qq.* into v_queue from q_data.queue qq where qq.id = v_job.queue_id;
  v_last := v_job.errors -> -1;

  -- Dependencies (revision 0009): a pending job waits for its parents; a
  -- job on hold waits for an operator. Either is its whole story.
  if v_job.state in ('p', 'o') then
    return query select * from q.deps_explain(v_job);
    return;
  end if;

  if v_job.state = 'r' then
    if v_job.owner is null then
      if v_job.lease_until < v_now then
        return query select 'claim_expired'::text,
          format('claimed (lease only) but the lease ran out at %s; the next q.reap returns it to the queue (crash %s of %s)',
                 v_job.lease_until, coalesce(v_job.crashes, 0) + 1, v_queue.max_crashes),
          jsonb_build_object('attempt', v_job.attempt, 'lease_until', v_job.lease_until, 'progress', v_job.progress);
      else
        return query select 'claimed_lease'::text,
          format('running: claimed with a lease only (no session evidence), attempt %s, lease until %s',
                 v_job.attempt, v_job.lease_until),
          jsonb_build_object('attempt', v_job.attempt, 'lease_until', v_job.lease_until, 'progress', v_job.progress);
      end if;
      return;
    end if;
    select * into v_holder from q.claim_holder(v_job.owner);
    if found then
      return query select 'claimed_live'::text,
        format('running: claimed by a live session (pid %s%s, connected since %s), attempt %s, lease until %s',
               v_holder.pid, coalesce(', ' || quote_literal(nullif(v_holder.application_name, '')), ''),
               coalesce(v_holder.backend_start::text, 'unknown'), v_job.attempt, v_job.lease_until),
        jsonb_build_object('pid', v_holder.pid, 'application_name', v_holder.application_name,
                           'backend_start', v_holder.backend_start, 'session_state', v_holder.state,
                           'owner', v_job.owner, 'attempt', v_job.attempt, 'lease_until', v_job.lease_until,
                           'progress', v_job.progress);
      if v_job.lease_until < v_now then
        return query select 'claim_expired'::text,
          format('the lease ran out at %s (no heartbeat); the next q.reap returns it to the queue', v_job.lease_until),
          jsonb_build_object('lease_until', v_job.lease_until);
      end if;
    else
      return query select 'claimed_gone'::text,
        format('claimed by a session that is gone (key %s); the next q.reap returns it to the queue (crash %s of %s)',
               v_job.owner, coalesce(v_job.crashes, 0) + 1, v_queue.max_crashes),
        jsonb_build_object('owner', v_job.owner, 'attempt', v_job.attempt, 'lease_until', v_job.lease_until,
                           'crashes', coalesce(v_job.crashes, 0), 'max_crashes', v_queue.max_crashes);
    end if;
    return;
  end if;

  -- Waiting or scheduled: every reason that applies, one row each.
  -- (a job a key's rate put off is explained by q.flow_reasons below)
  if v_job.state = 's' and v_job.run_at > v_now and v_job.rate_wait then
    null;
  elsif v_job.state = 's' and v_job.run_at > v_now then
    if v_last is not null and not coalesce((v_last ->> 'crashed')::boolean, false)
       and (v_last ->> 'attempt')::integer = v_job.attempt then
      return query select 'backing_off'::text,
        format('backing off after failure %s until %s: %s', v_job.attempt - coalesce(v_job.crashes, 0), v_job.run_at,
               left(v_last ->> 'error', 200)),
        jsonb_build_object('failures', v_job.attempt - coalesce(v_job.crashes, 0), 'until', v_job.run_at,
                           'last_error', v_last);
    else
      return query select 'scheduled'::text,
        format('scheduled for %s (in %s)', v_job.run_at, date_trunc('second', v_job.run_at - v_now)),
        jsonb_build_object('run_at', v_job.run_at);
    end if;
  elsif v_job.state = 's' then
    return query select 'due'::text,
      format('due since %s; the next claim of queue %s (or q.reap) makes it waiting', v_job.run_at, v_queue.name),
      jsonb_build_object('run_at', v_job.run_at);
  end if;

  if v_queue.paused then
    return query select 'paused'::text,
      format('queue %s is paused; q.resume(%L) lets claims go on', v_queue.name, v_queue.name),
      jsonb_build_object('queue', v_queue.name);
  end if;

  -- Flow control (revision 0005): concurrency and rate limits, one row each
  -- (codes key_concurrency for a held job, concurrency, rate).
  return query
    select f.code, f.reason, jsonb_build_object('limit', f.code) from q.flow_reasons(v_job, v_queue) f;
  v_limited := found;

  -- A held job is not in the claim index: the key_concurrency row above is
  -- its whole story.
  if v_job.state = 'w' or (v_job.state = 's' and v_job.run_at <= v_now) then
    -- Jobs a claim takes first: higher priority, or same priority and older.
    -- Two ranges of the claim index, each counted up to v_limit.
    select count(*) into v_higher
      from (select from q_data.job j
             where j.queue_id = v_job.queue_id and j.state = 'w' and j.priority > v_job.priority
             limit v_limit) x;
    select count(*) into v_older
      from (select from q_data.job j
             where j.queue_id = v_job.queue_id and j.state = 'w' and j.priority = v_job.priority
               and j.run_at < v_job.run_at
             limit v_limit) x;
    if v_higher + v_older > 0 then
      return query select 'behind'::text,
        format('waiting behind %s%s job(s) of queue %s: %s of higher priority, %s older of the same priority',
               case when v_higher >= v_limit or v_older >= v_limit then 'at least ' else '' end,
               v_higher + v_older, v_queue.name, v_higher, v_older),
        jsonb_build_object('ahead', v_higher + v_older, 'higher_priority', v_higher, 'older', v_older,
                           'counted_up_to', v_limit, 'priority', v_job.priority);
    elsif v_job.state = 'w' and not v_queue.paused and not v_limited then
      return query select 'ready'::text,
        format('first in line: the next q.claim(%L) takes it (no worker has claimed since it became due)', v_queue.name),
        jsonb_build_object('queue', v_queue.name, 'waiting_since', v_job.run_at);
    end if;
  end if;
end
$$;

comment on function q.explain(bigint) is
  'Why job id is not running now, one row per reason: code (unknown, completed, dead, cancelled, claimed_live, claimed_lease, claimed_gone, claim_expired, scheduled, backing_off, due, paused, behind, ready, waiting_for_parents, on_hold; with flow control also concurrency, key_concurrency, rate, key_rate), a sentence, and details as JSON (for a running or finished job also its progress, q.heartbeat). A waiting or scheduled job is found by reading the hot table (it has no id index).';

revoke all on function q.explain(bigint) from public;
grant execute on function q.explain(bigint) to pgq_viewer;
