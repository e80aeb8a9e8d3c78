-- How a job's end reaches the rest of pgq: its flow-control slots, its
-- children and its batch. Every way a job ends deletes its row from
-- q_data.job (complete, fail or reap to dead, cancel, cancel_jobs, purge), so
-- one AFTER DELETE trigger sees them all, in the ending transaction.
--
-- One trigger for both (revision 0011; 0009-0010 had _110_flow_finish and
-- _120_deps_finish): PostgreSQL compiles each trigger's WHEN clause again for
-- every statement that deletes a row, so every complete paid two where one
-- does (design.md#one-check-constraint-one-trigger-per-event). The flow part
-- runs first, as it did.
--
-- How it ended: a DELETE cannot say, so the paths that do not complete set
-- the transaction-local setting pgq.job_end ('dead', 'cancelled', 'purged')
-- around their DELETE and clear it after; unset means completed (q.complete
-- and q.complete_many, the hot path, set nothing). 'cascade' means the
-- caller (q.deps_resolve) handles the children and batch itself.
--
-- What it costs a job without limits, children, parents or batch: one WHEN
-- test on the old row, which PostgreSQL fetches again (no lock) to read it;
-- no event is queued when it is false.
create or replace function q.tg_job__ended()
returns trigger
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
  v_end  text;
  v_out  "char";
begin
  -- Flow control: the queue slot is freed, the key slot passed to the key's
  -- next held job.
  if old.queue_slot is not null then
    perform q.flow_free_queue_slot(old.queue_id, old.queue_slot);
  end if;
  if old.key_slot is not null then
    perform q.flow_pass_key_slot(old.queue_id, old.concurrency_key, old.key_slot);
  end if;
  -- A child (enqueued after parents, whatever way it ended): one row tells
  -- q.purge_deps when its edges may go. A job run again after q.retry ends
  -- again and moves the date.
  if old.parents_left is not null then
    insert into q_data.job_dep_ended (child_id, queue_id, ended_at)
    values (old.id, old.queue_id, now())
    on conflict (child_id) do update set queue_id = excluded.queue_id, ended_at = excluded.ended_at;
  end if;
  if old.has_children is not true and old.batch_id is null then
    return null;
  end if;
  v_end := coalesce(current_setting('pgq.job_end', true), '');
  if v_end = 'cascade' then
    return null;
  end if;
  v_out := case v_end when '' then 'c' when 'dead' then 'd' else 'x' end;
  if old.has_children then
    perform q.deps_resolve(array[old.id], v_out);
  end if;
  if old.batch_id is not null then
    perform q.batch_member_ended(old.batch_id, old.id, v_out);
  end if;
  return null;
end
$$;

comment on function q.tg_job__ended() is
  'AFTER DELETE row trigger: a finished job frees its queue slot and passes its key slot to the key''s next held job; a job with children passes its end to them (q.deps_resolve); a batch member records its end and may fire the batch''s callback (q.batch_member_ended); a job with parents records when it ended (q_data.job_dep_ended, for q.purge_deps). The outcome is read from pgq.job_end (unset = completed).';

revoke all on function q.tg_job__ended() from public;

create or replace trigger _110_job_ended
  after delete on q_data.job
  for each row
  when (old.queue_slot is not null or old.key_slot is not null
        or old.has_children or old.batch_id is not null or old.parents_left is not null)
  execute function q.tg_job__ended();

comment on trigger _110_job_ended on q_data.job is
  'A job that ends frees its flow-control slots, tells its children and its batch, and, if it is a child, records its end for the purge of its edges.';
