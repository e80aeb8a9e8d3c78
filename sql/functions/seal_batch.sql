create or replace function q.seal_batch(id bigint)
returns boolean
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_batch  q_data.batch;
begin
  -- FOR UPDATE waits for producers still adding members (q.batch_join's key
  -- share) and serializes with members that may be last (q.batch_member_ended).
  select b.* into v_batch from q_data.batch b where b.id = seal_batch.id for update;
  if not found then
    raise exception 'batch % does not exist', seal_batch.id using errcode = 'P0002';
  end if;
  if v_batch.sealed_at is not null then
    return false;
  end if;
  update q_data.batch b set sealed_at = clock_timestamp() where b.id = seal_batch.id
  returning b.* into v_batch;
  -- All members may have ended already: the callback goes now.
  perform q.batch_try_fire(v_batch);
  return true;
end
$$;

comment on function q.seal_batch(bigint) is
  'Seals a batch: no job can join it any more, and its callback can be enqueued (now, if every member has ended). false if it was sealed already; P0002 for an unknown batch.';

revoke all on function q.seal_batch(bigint) from public;
grant execute on function q.seal_batch(bigint) to pgq_producer;
