-- How a job's end reaches the rest of pgq: its flow-control slots, its
-- children and its batch. Every way a job ends deletes its row from
-- q_data.job, and each function that deletes one calls this for the rows
-- that need it, right after its DELETE, in the ending transaction:
-- q.complete, q.complete_many, q.fail and q.reap (dead), q.cancel,
-- q.cancel_jobs, q.purge and q.deps_resolve (a cascade).
-- pgtap/schema/every_delete_of_a_job_tells_job_ended.sql holds every
-- function that deletes from q_data.job to calling it.
--
-- Called, not a trigger (revision 0014; 0009-0013 had the AFTER DELETE row
-- trigger _110_job_ended): PostgreSQL fetches the old row again for an AFTER
-- ROW trigger and compiles its WHEN clause for every deleting statement, so
-- every completion paid for it, with or without limits, children or batch:
-- 4.5 of q.complete's 39.7 µs (design.md#few-expressions-per-call). A caller
-- tests the same condition inline (one test on a row it holds) and calls
-- only for the rare job that needs it.
--
-- outcome: c = completed, d = dead, x = cancelled or purged, k = cancelled by
-- q.deps_resolve's cascade (which passes the end to children and batch
-- itself: only the slots and the child's end date here).
create or replace function q.job_ended(job q_data.job, outcome "char")
returns void
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
begin
  -- Flow control: the queue slot is freed, the key slot passed to the key's
  -- next held job.
  if job.queue_slot is not null then
    perform q.flow_free_queue_slot(job.queue_id, job.queue_slot);
  end if;
  if job.key_slot is not null then
    perform q.flow_pass_key_slot(job.queue_id, job.concurrency_key, job.key_slot);
  end if;
  -- A child (enqueued after parents, whatever way it ended): one row tells
  -- q.purge_deps when its edges may go. A job run again after q.retry ends
  -- again and moves the date.
  if job.parents_left is not null then
    insert into q_data.job_dep_ended (child_id, queue_id, ended_at)
    values (job.id, job.queue_id, now())
    on conflict (child_id) do update set queue_id = excluded.queue_id, ended_at = excluded.ended_at;
  end if;
  if job_ended.outcome = 'k' then
    return;
  end if;
  if job.has_children then
    perform q.deps_resolve(array[job.id], job_ended.outcome);
  end if;
  if job.batch_id is not null then
    perform q.batch_member_ended(job.batch_id, job.id, job_ended.outcome);
  end if;
end
$$;

comment on function q.job_ended(q_data.job, "char") is
  'A job''s row was deleted (outcome c completed, d dead, x cancelled or purged, k cancelled by a cascade): frees its queue slot and passes its key slot to the key''s next held job; a job with children passes its end to them (q.deps_resolve, not for k); a batch member records its end and may fire the batch''s callback (q.batch_member_ended, not for k); a job with parents records when it ended (q_data.job_dep_ended, for q.purge_deps). Its callers call it only for a job with a queue or key slot, children, parents or a batch.';

revoke all on function q.job_ended(q_data.job, "char") from public;
