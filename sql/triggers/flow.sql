-- Flow control's bookkeeping on q.job (see sql/schema/050_flow.sql). Triggers,
-- not calls in each function: every path that ends a hold (complete, fail,
-- release, cancel, reap, and any added later) frees the slot in its own
-- transaction without knowing about it. Each trigger has a WHEN clause on
-- columns that are NULL for jobs without limits, so those pay one
-- expression test per row and never enter plpgsql.

-- Admission: a keyed job that becomes due takes a key slot or is held.
create or replace function q.tg_job__flow_admit()
returns trigger
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
  v_k  integer;
  v_n  smallint;
begin
  select qq.key_concurrency into v_k from q.queue qq where qq.id = new.queue_id;
  if v_k is null then
    return new;
  end if;
  v_n := q.flow_take_key_slot(new.queue_id, new.concurrency_key, v_k, new.id);
  if v_n is null then
    new.state := 'h';
  else
    new.key_slot := v_n;
  end if;
  return new;
end
$$;

comment on function q.tg_job__flow_admit() is
  'BEFORE INSERT/UPDATE row trigger: a job with a concurrency key that becomes waiting takes a key slot (q.flow_take_key_slot) or is held (state h).';

create trigger _100_flow_admit_inserted
  before insert on q.job
  for each row
  when (new.concurrency_key is not null and new.state = 'w')
  execute function q.tg_job__flow_admit();

comment on trigger _100_flow_admit_inserted on q.job is
  'A keyed job enqueued due now takes a key slot or is held.';

-- Scheduled jobs (run_at later) take no slot until due; a retry keeps its
-- slot (key_slot set) and needs none.
create trigger _100_flow_admit_due
  before update of state on q.job
  for each row
  when (old.state = 's' and new.state = 'w' and new.concurrency_key is not null and new.key_slot is null)
  execute function q.tg_job__flow_admit();

comment on trigger _100_flow_admit_due on q.job is
  'A keyed scheduled job that becomes due takes a key slot or is held.';

-- A running job that stops running (fail, release, reap) gives its queue
-- slot back; its key slot stays with it (a retry keeps the key's place).
create or replace function q.tg_job__flow_stop()
returns trigger
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
begin
  update q.queue_slot s
     set job_id = null
   where s.queue_id = old.queue_id
     and s.n = old.queue_slot;
  new.queue_slot := null;
  -- A hint for listening workers that found every slot taken.
  perform q.flow_wake(old.queue_id);
  return new;
end
$$;

comment on function q.tg_job__flow_stop() is
  'BEFORE UPDATE row trigger: a job that leaves state r frees its queue slot and wakes listening workers.';

create trigger _110_flow_stop
  before update of state on q.job
  for each row
  when (old.queue_slot is not null and new.state <> 'r')
  execute function q.tg_job__flow_stop();

comment on trigger _110_flow_stop on q.job is
  'A job that stops running gives its queue slot back.';

-- A job that leaves q.job (complete, dead, cancel, crash budget spent) frees
-- its queue slot and passes its key slot on.
create or replace function q.tg_job__flow_finish()
returns trigger
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
begin
  if old.queue_slot is not null then
    update q.queue_slot s
       set job_id = null
     where s.queue_id = old.queue_id
       and s.n = old.queue_slot;
    perform q.flow_wake(old.queue_id);
  end if;
  if old.key_slot is not null then
    perform q.flow_pass_key_slot(old.queue_id, old.concurrency_key, old.key_slot);
  end if;
  return null;
end
$$;

comment on function q.tg_job__flow_finish() is
  'AFTER DELETE row trigger: a finished job frees its queue slot and passes its key slot to the key''s next held job.';

create trigger _110_flow_finish
  after delete on q.job
  for each row
  when (old.queue_slot is not null or old.key_slot is not null)
  execute function q.tg_job__flow_finish();

comment on trigger _110_flow_finish on q.job is
  'A finished job frees its queue slot and passes its key slot on.';

revoke all on function q.tg_job__flow_admit() from public;
revoke all on function q.tg_job__flow_stop() from public;
revoke all on function q.tg_job__flow_finish() from public;
