-- The wake-up of the paths that make jobs waiting without an INSERT: a
-- retry due now (q.fail), a release, the reaper's recovered claims and
-- promoted scheduled jobs. Gated as the enqueue trigger is (one-shot, on
-- demand, sql/triggers/notify_enqueued.sql): a NOTIFY only for a queue some
-- session waits for, sent by the transaction that takes (deletes) the queue's
-- q_data.waiter rows; rows another transaction holds are skipped (it sends
-- the wake-up), so this never waits. Paths whose claimers do not record a
-- wait (flow control's freed slots, q.resume) call q.notify_always instead.
create or replace function q.notify_queues(queue_ids integer[])
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
-- plpgsql, not sql: its statement plans are cached for the session, while a
-- non-inlinable sql function is planned again on every call.
declare
  v_queue text;
begin
  -- The channel is 'pgq' and the payload the queue name, never job data.
  -- A hint only: workers also poll, so a lost notification costs latency.
  -- Skipped while the notification queue is filling (q.notify_allowed).
  if not q.notify_allowed() then
    return;
  end if;
  if coalesce(current_setting('pgq.notify', true), '') = 'always'
     or current_setting('transaction_isolation') <> 'read committed' then
    -- (Not READ COMMITTED: the snapshot may predate a wait; notify, to be safe.)
    perform pg_notify('pgq', qq.name)
       from q_data.queue qq
      where qq.id = any(notify_queues.queue_ids);
    return;
  end if;
  -- Nobody waits at all: one cached-plan read.
  if not exists (select from q_data.waiter) then
    return;
  end if;
  for v_queue in
    with taken as (
      delete from q_data.waiter w
       where w.ctid = any(array(
               select x.ctid
                 from q_data.waiter x
                where x.queue in (select qq.name from q_data.queue qq where qq.id = any(notify_queues.queue_ids))
                  for update skip locked))
      returning w.queue
    )
    select distinct t.queue from taken t
  loop
    perform pg_notify('pgq', v_queue);
  end loop;
end
$$;

comment on function q.notify_queues(integer[]) is
  'Wakes the sessions waiting for these queues: takes (deletes, skipping rows another transaction holds) their q_data.waiter rows and sends one NOTIFY on channel pgq (payload: the queue name) per queue whose waits it took; for every queue when pgq.notify = always or the transaction is not READ COMMITTED. Nothing when pgq.notify is off or the notification queue is filling (q.notify_allowed).';

revoke all on function q.notify_queues(integer[]) from public;
