-- Flow control's bookkeeping on q_data.job (see sql/schema/065_flow.sql): the
-- trigger functions. Triggers, not calls in each function: every path that
-- ends a hold (complete, fail, release, cancel, reap, and any added later)
-- frees the slot in its own transaction without knowing about it. The
-- triggers themselves are made by q.flow_arm (sql/internal/flow_arm.sql)
-- when the first limit is set, not at install: a row trigger costs every
-- row it could fire on even when its WHEN clause is false (a BEFORE UPDATE
-- one fetches and locks the old row first), and a database whose queues
-- have no limit should not pay for them (revision 0007).

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
  select qq.key_concurrency into v_k from q_data.queue qq where qq.id = new.queue_id;
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

-- A running job that stops running (fail, release, reap) gives its queue
-- slot back; its key slot stays with it (a retry keeps the key's place).
create or replace function q.tg_job__flow_stop()
returns trigger
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
begin
  update q_data.queue_slot s
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

-- A job that leaves q_data.job (complete, dead, cancel, crash budget spent) frees
-- its queue slot and passes its key slot on.
create or replace function q.tg_job__flow_finish()
returns trigger
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
begin
  if old.queue_slot is not null then
    update q_data.queue_slot s
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

revoke all on function q.tg_job__flow_admit() from public;
revoke all on function q.tg_job__flow_stop() from public;
revoke all on function q.tg_job__flow_finish() from public;
