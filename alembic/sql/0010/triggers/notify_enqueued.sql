-- One NOTIFY per idle period of a queue, sent at commit (never on rollback),
-- and only for a queue some session waits for (q_data.waiter). Scheduled jobs
-- do not wake anyone: they are not due yet. Switch off for bulk loads with SET
-- pgq.notify = off; SET pgq.notify = always sends it whether anyone waits or
-- not (a LISTEN loop of one's own that does not say it waits). Skipped while
-- the notification queue is filling, so it never fails a commit
-- (q.notify_allowed).
--
-- Why on demand (design.md#wake-ups-on-demand). PostgreSQL serializes the
-- commits of every transaction that sent a NOTIFY: one cluster-wide lock (the
-- heavyweight lock on database object 0, wait_event 'object') is held from
-- pre-commit until the commit record is flushed. With a NOTIFY in every
-- enqueue, 50 producers committed one at a time: 1,024-1,665 tx/s, against
-- 3,362-3,493 with pgq.notify = off. A worker that is busy (its last claim
-- found jobs) claims again without being told, so only an idle one needs the
-- hint. Idle workers say so: an empty claim made with pgq.listening = on,
-- pgq.wait_when = empty (the worker runtime) and an owner key adds a row to
-- q_data.waiter (q.note_wait, written only on that idle transition).
--
-- One-shot (revision 0009). Until 0009 this trigger only read the table, and
-- every enqueue sent a NOTIFY while a worker waited: 287-471 per 1,000
-- enqueues with a worker keeping up with 1-180 producers, each one a commit
-- under the global lock; and a waiter row left by a worker that stopped made
-- every enqueue notify until q.reap noticed. Now the first producer that sees
-- a queue's waiter rows takes them: it deletes them (FOR UPDATE SKIP LOCKED:
-- no producer ever waits for another) and sends the one NOTIFY, which wakes
-- every listener. The producers after it find no row (or only rows another
-- producer holds) and send nothing until a worker records a new wait. A
-- stale row (its worker gone) costs one NOTIFY, once. The deletion is part
-- of the producer's transaction: if that producer rolls back, the rows come
-- back and the next enqueue sends the wake-up; the worker is never left
-- without one. (What such a rollback costs the jobs of the producers that
-- skipped the locked rows meanwhile: see the race below, case 3.)
--
-- The alternatives, and why not:
-- * Read-only gate (0008): one NOTIFY per enqueue while a worker waits (see
--   above).
-- * A per-queue throttle (at most one NOTIFY per queue per few ms, the
--   sender chosen with SKIP LOCKED on a per-queue row): every enqueue writes
--   a shared row when it wins; and a job enqueued inside the quiet window of
--   the one before has nobody to announce it: if the woken worker's claim
--   ran before it committed, it waits for the next job or the poll. There is
--   no timer in the database to send the trailing NOTIFY.
-- * Moving the wake-up out of the producer's transaction: a notifier process
--   polling for new jobs is polling (the idle pickup, p50 <= 2 ms, would
--   cost a query every millisecond per worker); logical decoding needs
--   replication rights pgq's roles do not have.
-- * Commit-time check (a deferred constraint trigger): closes the window
--   below for transactions that stay open after their enqueue, but it must be
--   FOR EACH ROW, a call per job at commit (enqueue_many of 1,000 rows: 1,000
--   calls).
--
-- The race: a worker goes idle just as a job commits. At READ COMMITTED
-- (producers at a stricter level always send, and take no row: their
-- snapshot may predate a wait that began before their commit):
--   W1  the worker's claim C1 finds nothing and inserts its waiter row R in
--       the same transaction, which commits at time tR;
--   W2  only after that answer (q.claim sets pgq.claim_waiting = 'new') does
--       it claim once more, C2, whose snapshot s2 is later than tR, and once
--       more about 50 ms later (C3, the worker's WAIT_RECHECK); then it
--       sleeps until a NOTIFY, or at most one poll interval.
--   P   the producer's statement inserts job J; this trigger reads
--       q_data.waiter with a snapshot taken at time tp; J commits at tJ > tp.
-- 1. tp > tR and R is free: the trigger takes R and sends NOTIFY, delivered
--    after tJ to the worker, which LISTENed before it claimed; its next claim
--    sees J.
-- 2. tp < tR: if tJ < s2, C2 sees J (and if C1 saw it, there was no wait).
--    The only miss is tp < tR < s2 < tJ: the producer's statement ran before
--    the wait began and committed after C2 looked. C3 picks it up if it
--    committed by then, else the worker's next poll (or another job's
--    NOTIFY).
-- 3. tp > tR but another producer P' holds R (it took the wake-up and has not
--    committed): P sends nothing. If P' commits, its NOTIFY wakes the worker
--    after tP'; a claim then sees J if tJ < tP'-claim, else J is case 2 for
--    the wait the worker records next (its claim that found P''s job ends it,
--    and its next empty one begins a new wait R2 with tp < tR2). If P' rolls
--    back, R is back and nobody announced J: the next enqueue's NOTIFY or the
--    poll picks it up.
-- Never later than one poll interval. For an autocommit enqueue tp to tJ is
-- the end of the statement and the commit's WAL flush, which must contain the
-- worker's whole round trip; a transaction that stays open after its enqueue
-- widens it to the rest of the transaction, and a producer that holds R in a
-- long transaction holds the other producers' wake-ups for as long (their
-- jobs are found by the poll). The cost in the worst case is one poll
-- interval. tests/worker/test_worker_wakeups_on_demand.py runs the race many
-- times with real connections and asserts that bound.
create or replace function q.tg_job__notify_enqueued()
returns trigger
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
  v_mode    text := coalesce(current_setting('pgq.notify', true), '');
  v_gated   boolean;
  v_queue   text;
begin
  if v_mode = 'off' then
    return null;
  end if;
  v_gated := v_mode <> 'always' and current_setting('transaction_isolation') = 'read committed';
  -- Nobody waits at all (no worker, or every worker busy): done, with one
  -- cached-plan read, before the notification queue's lock and before the
  -- query over the transition table (planned on every firing).
  if v_gated and not exists (select from q_data.waiter) then
    return null;
  end if;
  -- q.notify_allowed()'s test, inline: the trigger fires on every enqueue
  -- and a nested function call cost about 4 us of a 25 us q.enqueue.
  if pg_notification_queue_usage() >= coalesce(
       (select v::float8 from (select current_setting('pgq.notify_queue_limit', true) as v) s
         where v ~ '^\s*(0|1|0?\.[0-9]+|0\.[0-9]*|1\.0*)\s*$'), 0.5) then
    return null;
  end if;
  if not v_gated then
    -- One statement, no nested call. pg_notify folds repeats within a
    -- transaction: one per queue is sent.
    perform pg_notify('pgq', qq.name)
       from q_data.queue qq
      where qq.id in (select i.queue_id from inserted i where i.state = 'w');
    return null;
  end if;
  -- One-shot: take the waits of the queues that got waiting jobs (rows
  -- another producer holds are skipped: it sends the wake-up) and send one
  -- NOTIFY per queue whose waits this transaction took.
  for v_queue in
    with taken as (
      delete from q_data.waiter w
       where w.ctid = any(array(
               select x.ctid
                 from q_data.waiter x
                where x.queue in (select qq.name from q_data.queue qq
                                   where qq.id in (select i.queue_id from inserted i where i.state = 'w'))
                  for update skip locked))
      returning w.queue
    )
    select distinct t.queue from taken t
  loop
    perform pg_notify('pgq', v_queue);
  end loop;
  return null;
end
$$;

comment on function q.tg_job__notify_enqueued() is
  'Statement-level trigger: for each queue that got waiting jobs and that a session waits for, takes (deletes, skipping rows another transaction holds) its q_data.waiter rows and sends NOTIFY pgq, ''<queue>'': one wake-up per wait. When pgq.notify = always or the transaction is not READ COMMITTED: NOTIFY for every such queue, waits untouched.';

-- (or replace: a later revision re-runs this file to pick up a new body)
create or replace trigger _900_notify_enqueued
  after insert on q_data.job
  referencing new table as inserted
  for each statement
  execute function q.tg_job__notify_enqueued();

comment on trigger _900_notify_enqueued on q_data.job is
  'Wakes waiting workers: one pg_notify per wait (the statement that takes a queue''s q_data.waiter rows sends it); SET pgq.notify = off disables it, = always sends it per statement regardless of waiters, and it is skipped while the notification queue is at least pgq.notify_queue_limit full.';

revoke all on function q.tg_job__notify_enqueued() from public;
