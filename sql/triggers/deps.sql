-- Dependencies and batches (issue 24): how a job's end reaches its children
-- and its batch. Every way a job ends deletes its row from q_data.job
-- (complete, fail or reap to dead, cancel, cancel_jobs, purge), so one AFTER
-- DELETE trigger sees them all, in the ending transaction.
--
-- How it ended: a DELETE cannot say, so the paths that do not complete set
-- the transaction-local setting pgq.job_end ('dead', 'cancelled', 'purged')
-- around their DELETE and clear it after; unset means completed (q.complete
-- and q.complete_many, the hot path, set nothing). 'cascade' means the
-- caller (q.deps_resolve) handles the rows itself.
--
-- What it costs a job without children or batch: one WHEN test on the old
-- row that PostgreSQL already fetched for _110_flow_finish's WHEN.

create or replace function q.tg_job__deps_finish()
returns trigger
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
  v_end  text := coalesce(current_setting('pgq.job_end', true), '');
  v_out  "char";
begin
  -- A child (enqueued after parents, whatever way it ended): one row tells
  -- q.purge_deps when its edges may go. A job run again after q.retry ends
  -- again and moves the date.
  if old.parents_left is not null then
    insert into q_data.job_dep_ended (child_id, queue_id, ended_at)
    values (old.id, old.queue_id, now())
    on conflict (child_id) do update set queue_id = excluded.queue_id, ended_at = excluded.ended_at;
  end if;
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

comment on function q.tg_job__deps_finish() is
  'AFTER DELETE row trigger: a job with children passes its end to them (q.deps_resolve); a batch member records its end and may fire the batch''s callback (q.batch_member_ended); a job with parents records when it ended (q_data.job_dep_ended, for q.purge_deps). The outcome is read from pgq.job_end (unset = completed).';

revoke all on function q.tg_job__deps_finish() from public;

create trigger _120_deps_finish
  after delete on q_data.job
  for each row
  when (old.has_children or old.batch_id is not null or old.parents_left is not null)
  execute function q.tg_job__deps_finish();

comment on trigger _120_deps_finish on q_data.job is
  'A job that ends tells its children and its batch, and a child records its end for the purge of its edges.';

-- A keyed job whose last parent ended becomes due: it takes a key slot or is
-- held, as a scheduled job that becomes due does (_100_flow_admit_due).
create trigger _100_deps_admit_ready
  before update of state on q_data.job
  for each row
  when (old.state in ('p', 'o') and new.state = 'w' and new.concurrency_key is not null and new.key_slot is null)
  execute function q.tg_job__flow_admit();

comment on trigger _100_deps_admit_ready on q_data.job is
  'A keyed job whose parents have ended (or that an operator unblocked) takes a key slot or is held.';
