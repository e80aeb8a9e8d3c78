create or replace function q.batch_try_fire(batch q_data.batch)
returns boolean
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_counts  jsonb;
  v_id      bigint;
begin
  -- The caller holds the batch row FOR UPDATE: this test and the enqueue
  -- below happen once per batch (fired_at).
  if batch_try_fire.batch.fired_at is not null or batch_try_fire.batch.sealed_at is null then
    return false;
  end if;
  if exists (select from q_data.job j where j.batch_id = batch_try_fire.batch.id)
     and not (batch_try_fire.batch.on_dead = 'f'
              and exists (select from q_data.batch_done d
                           where d.batch_id = batch_try_fire.batch.id and d.outcome = 'd')) then
    return false;
  end if;
  select jsonb_build_object(
           'id', batch_try_fire.batch.id,
           'completed', count(*) filter (where d.outcome = 'c'),
           'dead', count(*) filter (where d.outcome = 'd'),
           'cancelled', count(*) filter (where d.outcome = 'x'))
    into v_counts
    from q_data.batch_done d
   where d.batch_id = batch_try_fire.batch.id;
  v_id := q.enqueue(batch_try_fire.batch.callback_queue,
                    batch_try_fire.batch.callback_payload || jsonb_build_object('batch', v_counts));
  update q_data.batch b
     set fired_at = clock_timestamp(), callback_id = v_id
   where b.id = batch_try_fire.batch.id;
  return true;
end
$$;

comment on function q.batch_try_fire(q_data.batch) is
  'With the batch row locked by the caller: if the batch is sealed, not fired, and no member is left (or a member died and on_dead is f), enqueues the callback with payload callback_payload plus {"batch": {"id", "completed", "dead", "cancelled"}} and records it.';

revoke all on function q.batch_try_fire(q_data.batch) from public;
