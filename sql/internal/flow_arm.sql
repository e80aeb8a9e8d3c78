-- Flow control's row triggers on q_data.job (their functions are in
-- sql/triggers/flow.sql), made when the first limit of the database is set
-- (q.flow_configure), not at install: a row trigger costs every row it could
-- fire on even when its WHEN clause is false (a BEFORE UPDATE trigger
-- fetches and locks the old row before the clause is read), so a database
-- whose queues have no limit does not carry them (revision 0007). Once made
-- they stay: a job may hold a slot after its queue's limit is removed.
--
-- CREATE TRIGGER takes SHARE ROW EXCLUSIVE on q_data.job: it waits for every open
-- transaction that has written q_data.job, and writes wait behind it. The wait is
-- bounded at 2 s (then 55P03 and nothing changes), so a producer idle in a
-- transaction cannot stall the queue for longer than that, once.
create or replace function q.flow_arm()
returns boolean
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_timeout text := current_setting('lock_timeout');
begin
  if exists (select from pg_catalog.pg_trigger t
              where t.tgrelid = 'q_data.job'::regclass and t.tgname = '_110_flow_finish') then
    return false;
  end if;
  perform set_config('lock_timeout', '2s', true);
  begin
    lock table q_data.job in share row exclusive mode;
  exception when lock_not_available then
    raise exception 'q_data.job is busy: the first flow-control limit adds triggers to q_data.job, which waits for the transactions writing it, and one stayed open for over 2 seconds'
      using errcode = '55P03',
            hint = 'retry when no long transaction writes jobs (see pg_stat_activity); nothing was changed';
  end;
  perform set_config('lock_timeout', v_timeout, true);
  -- (another configure may have made them while we waited)
  if exists (select from pg_catalog.pg_trigger t
              where t.tgrelid = 'q_data.job'::regclass and t.tgname = '_110_flow_finish') then
    return false;
  end if;

  create trigger _100_flow_admit_inserted
    before insert on q_data.job
    for each row
    when (new.concurrency_key is not null and new.state = 'w')
    execute function q.tg_job__flow_admit();

  comment on trigger _100_flow_admit_inserted on q_data.job is
    'A keyed job enqueued due now takes a key slot or is held.';

  -- Scheduled jobs (run_at later) take no slot until due; a retry keeps its
  -- slot (key_slot set) and needs none.
  create trigger _100_flow_admit_due
    before update of state on q_data.job
    for each row
    when (old.state = 's' and new.state = 'w' and new.concurrency_key is not null and new.key_slot is null)
    execute function q.tg_job__flow_admit();

  comment on trigger _100_flow_admit_due on q_data.job is
    'A keyed scheduled job that becomes due takes a key slot or is held.';

  create trigger _110_flow_stop
    before update of state on q_data.job
    for each row
    when (old.queue_slot is not null and new.state <> 'r')
    execute function q.tg_job__flow_stop();

  comment on trigger _110_flow_stop on q_data.job is
    'A job that stops running gives its queue slot back.';

  create trigger _110_flow_finish
    after delete on q_data.job
    for each row
    when (old.queue_slot is not null or old.key_slot is not null)
    execute function q.tg_job__flow_finish();

  comment on trigger _110_flow_finish on q_data.job is
    'A finished job frees its queue slot and passes its key slot on.';
  return true;
end
$$;

comment on function q.flow_arm() is
  'Makes flow control''s row triggers on q_data.job if they are missing (the first limit of the database); returns whether it made them. Waits at most 2 s for transactions writing q_data.job (55P03 then).';

revoke all on function q.flow_arm() from public;
