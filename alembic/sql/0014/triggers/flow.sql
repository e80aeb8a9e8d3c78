-- Flow control's bookkeeping on q_data.job (see sql/schema/065_flow.sql):
-- the trigger that admits a keyed job inserted waiting. A job's end (its
-- slots freed, its children and batch told) is sql/internal/job_ended.sql.
-- Jobs that become waiting or stop running by an UPDATE are admitted or give
-- their queue slot back by calls in the functions that update them
-- (q.flow_admit, q.flow_free_queue_slot): q_data.job has no UPDATE trigger
-- (revision 0012; design.md#no-update-trigger-on-the-job-table).
--
-- The trigger exists from installation (revision 0008). Up to 0007 the first
-- limit of the database made it (q.flow_arm), which needed SHARE ROW
-- EXCLUSIVE on q_data.job: behind producers that kept one writing transaction
-- open, every such q.configure failed after 2 s, stalling every writer for
-- those 2 s (design.md#the-flow-triggers-exist-from-installation). Now q.configure takes no
-- lock on q_data.job at all.
--
-- What it costs a job of a queue without limits: the WHEN test on the new
-- row (concurrency_key and state; no read), so jobs without a key pay one
-- test and nothing is called.

-- A keyed job enqueued due now takes a key slot or is held.
create or replace function q.tg_job__flow()
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

comment on function q.tg_job__flow() is
  'BEFORE INSERT row trigger: a job with a concurrency key inserted waiting takes a key slot (q.flow_take_key_slot) or is held (state h). Jobs made waiting by an UPDATE go through q.flow_admit.';

revoke all on function q.tg_job__flow() from public;

create or replace trigger _100_flow_admit_inserted
  before insert on q_data.job
  for each row
  when (new.concurrency_key is not null and new.state = 'w')
  execute function q.tg_job__flow();

comment on trigger _100_flow_admit_inserted on q_data.job is
  'A keyed job enqueued due now takes a key slot or is held.';
