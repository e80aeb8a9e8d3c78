create or replace function q.batch_member_ended(batch_id bigint, job_id bigint, outcome "char")
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_batch  q_data.batch;
begin
  -- The member's row has just been deleted by this transaction. Its outcome
  -- is one insert of its own (no counter row that every member updates).
  insert into q_data.batch_done (batch_id, job_id, outcome)
  values (batch_member_ended.batch_id, batch_member_ended.job_id, batch_member_ended.outcome)
  on conflict do nothing;

  select b.* into v_batch from q_data.batch b where b.id = batch_member_ended.batch_id;
  if not found or v_batch.fired_at is not null then
    return;
  end if;

  -- Could this member be the last? Exactly once without a hot row:
  -- * If another member's row is live and NOT locked, we take FOR KEY SHARE
  --   on it and stop. That member ends by a DELETE, which conflicts with our
  --   lock, so it ends after we commit, and its own test sees our row gone:
  --   someone after us does the final test.
  -- * Otherwise (no other member, or all of them locked: ending now, or just
  --   being claimed) we might be last: we lock the batch row FOR UPDATE and
  --   count the members left with a new snapshot. Every member that ends
  --   concurrently either took a key share on a live row (then that row's
  --   member tests after it), or also lands here and takes the batch lock
  --   after us, and then sees our commit. q.seal_batch takes the same lock,
  --   so a batch sealed concurrently is tested by whichever comes second.
  -- The batch lock is taken only by members that found no unlocked live
  -- sibling: in a large batch, only the last few.
  if not (batch_member_ended.outcome = 'd' and v_batch.on_dead = 'f') then
    perform from q_data.job j
      where j.batch_id = batch_member_ended.batch_id
      limit 1
      for key share skip locked;
    if found then
      return;
    end if;
  end if;

  select b.* into v_batch from q_data.batch b where b.id = batch_member_ended.batch_id for update;
  perform q.batch_try_fire(v_batch);
end
$$;

comment on function q.batch_member_ended(bigint, bigint, "char") is
  'Records how a batch member ended (q_data.batch_done) and, if it may be the last (or the first dead one with on_dead f), tests the batch under its row lock and enqueues the callback (q.batch_try_fire).';

revoke all on function q.batch_member_ended(bigint, bigint, "char") from public;
