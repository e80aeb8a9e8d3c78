-- One NOTIFY per queue per INSERT statement, sent at commit (never on
-- rollback). Scheduled jobs do not wake anyone: they are not due yet.
-- Switch off for bulk loads with SET pgq.notify = off. Skipped while the
-- notification queue is filling, so it never fails a commit (q.notify_allowed).
create or replace function q.tg_job__notify_enqueued()
returns trigger
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
begin
  -- q.notify_allowed()'s test, inline: the trigger fires on every enqueue
  -- and a nested function call cost about 4 us of a 25 us q.enqueue.
  if coalesce(current_setting('pgq.notify', true), '') <> 'off'
     and pg_notification_queue_usage() < coalesce(
           (select v::float8 from (select current_setting('pgq.notify_queue_limit', true) as v) s
             where v ~ '^\s*(0|1|0?\.[0-9]+|0\.[0-9]*|1\.0*)\s*$'), 0.5) then
    -- One statement, no nested call: a query over a transition table is
    -- planned on every firing, so this runs on every enqueue and stays small.
    -- pg_notify folds repeats within a transaction: one per queue is sent.
    perform pg_notify('pgq', qq.name)
       from q_data.queue qq
      where qq.id in (select i.queue_id from inserted i where i.state = 'w');
  end if;
  return null;
end
$$;

comment on function q.tg_job__notify_enqueued() is
  'Statement-level trigger: NOTIFY pgq, ''<queue>'' once per queue that got waiting jobs.';

-- (or replace: a later revision re-runs this file to pick up a new body)
create or replace trigger _900_notify_enqueued
  after insert on q_data.job
  referencing new table as inserted
  for each statement
  execute function q.tg_job__notify_enqueued();

comment on trigger _900_notify_enqueued on q_data.job is
  'Wakes listening workers: one pg_notify per queue per statement; SET pgq.notify = off disables it, and it is skipped while the notification queue is at least pgq.notify_queue_limit full.';

revoke all on function q.tg_job__notify_enqueued() from public;
