create or replace function q.wake_result_waiters(ids bigint[])
returns bigint[]
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_awaited bigint[];
begin
  -- Called by every transaction that finishes jobs. Nobody waits, the usual
  -- case: one probe of a (nearly) empty table, no write and no NOTIFY (a
  -- NOTIFY holds a cluster-wide lock through the commit, see 090_waiter.sql).
  with gone as (
    delete from q_data.result_waiter w
     where w.job_id = any(wake_result_waiters.ids)
    returning w.job_id
  )
  select array_agg(distinct g.job_id) into v_awaited from gone g;
  if v_awaited is null then
    return '{}';
  end if;
  -- A waiter also polls (q.await_results), so a notification skipped under a
  -- full notification queue only delays it.
  if q.notify_allowed() then
    perform pg_notify('pgq_result', a::text) from unnest(v_awaited) a;
  end if;
  return v_awaited;
end
$$;

comment on function q.wake_result_waiters(bigint[]) is
  'Deletes the q_data.result_waiter rows of jobs that just finished and sends NOTIFY pgq_result (payload the id) for each; returns the ids somebody awaited.';

revoke all on function q.wake_result_waiters(bigint[]) from public;
