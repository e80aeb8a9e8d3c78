-- Flow control's bookkeeping on q_data.job (see sql/schema/065_flow.sql): the
-- trigger function and the triggers that admit and stop jobs; a job's end
-- (its slots freed, its children and batch told) is sql/triggers/job_ended.sql.
-- Triggers, not calls in each function: every path that ends a hold
-- (complete, fail, release, cancel, reap, and any added later) frees the slot
-- in its own transaction without knowing about it.
--
-- The triggers exist from installation (revision 0008). Up to 0007 the first
-- limit of the database made them (q.flow_arm), which needed SHARE ROW
-- EXCLUSIVE on q_data.job: behind producers that kept one writing transaction
-- open, every such q.configure failed after 2 s, stalling every writer for
-- those 2 s (design.md#the-flow-triggers-exist-from-installation). Now q.configure takes no
-- lock on q_data.job at all.
--
-- What they cost a job of a queue without limits (nothing is called: each
-- WHEN clause is false for it, and they read only the row at hand):
-- * enqueue: the BEFORE INSERT trigger's WHEN (concurrency_key and state on
--   the new row; no read), so jobs without a key pay one test.
-- * claim, fail, release, reap (UPDATE): PostgreSQL fetches and locks the old
--   row for BEFORE UPDATE row triggers before it reads their WHEN; the row is
--   already locked by the caller (FOR UPDATE in the claim, the running index
--   lookup elsewhere), so this is a second lock call on a row we hold, without
--   WAL and without waiting, plus one WHEN test.
-- * complete, cancel, dead (DELETE): see job_ended.sql.
-- 0007 measured all four at 13-18 % of the server time of claim 10 +
-- complete_many on an unlimited queue (make bench-flow); that is the price of
-- a first limit that can always be set, and the same for every queue.
--
-- ONE trigger per event (revision 0011; 0008-0010 had three BEFORE UPDATE OF
-- state triggers and two AFTER DELETE ones): PostgreSQL parses and compiles
-- each trigger's WHEN clause from its stored text again for every statement
-- that fires it, so each claim paid three WHEN compilations where one does
-- (design.md#one-check-constraint-one-trigger-per-event has the figures).

-- A keyed job that becomes due (inserted waiting, a scheduled job due, a
-- child whose parents ended, a job an operator unblocked) takes a key slot or
-- is held; a running job that stops running (fail, release, reap) gives its
-- queue slot back (its key slot stays with it: a retry keeps the key's place).
-- The two cases never meet: only a running job has a queue slot.
create or replace function q.tg_job__flow()
returns trigger
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
  v_k  integer;
  v_n  smallint;
begin
  if tg_op = 'UPDATE' then  -- (OLD is NULL for an INSERT)
    if old.queue_slot is not null then
      update q_data.queue_slot s
         set job_id = null
       where s.queue_id = old.queue_id
         and s.n = old.queue_slot;
      new.queue_slot := null;
      -- A hint for listening workers that found every slot taken.
      perform q.flow_wake(old.queue_id);
      return new;
    end if;
  end if;
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

comment on function q.tg_job__flow() is
  'BEFORE INSERT/UPDATE row trigger: a job with a concurrency key that becomes waiting takes a key slot (q.flow_take_key_slot) or is held (state h); a job that leaves state r frees its queue slot and wakes listening workers.';

revoke all on function q.tg_job__flow() from public;

create trigger _100_flow_admit_inserted
  before insert on q_data.job
  for each row
  when (new.concurrency_key is not null and new.state = 'w')
  execute function q.tg_job__flow();

comment on trigger _100_flow_admit_inserted on q_data.job is
  'A keyed job enqueued due now takes a key slot or is held.';

-- Scheduled jobs (run_at later) and pending children take no slot until due;
-- a retry keeps its slot (key_slot set) and needs none.
create trigger _100_flow_state_changed
  before update of state on q_data.job
  for each row
  when ((old.queue_slot is not null and new.state <> 'r')
        or (old.state in ('s', 'p', 'o') and new.state = 'w'
            and new.concurrency_key is not null and new.key_slot is null))
  execute function q.tg_job__flow();

comment on trigger _100_flow_state_changed on q_data.job is
  'A job that stops running gives its queue slot back; a keyed scheduled job that becomes due, or a keyed child whose parents have ended (or that an operator unblocked), takes a key slot or is held.';
