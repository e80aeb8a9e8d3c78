create or replace function q.create_batch(
  callback_queue    text,
  callback_payload  jsonb default '{}',
  on_dead           text  default 'wait'
)
returns bigint
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_id  bigint;
begin
  perform q.check_queue_name(create_batch.callback_queue);
  if jsonb_typeof(create_batch.callback_payload) is distinct from 'object' then
    raise exception 'callback_payload must be a JSON object (the counts are added to it), got %',
      coalesce(jsonb_typeof(create_batch.callback_payload), 'NULL') using errcode = '22023';
  end if;
  if create_batch.on_dead is null or create_batch.on_dead not in ('wait', 'fire') then
    raise exception 'on_dead must be wait or fire, got %', coalesce(quote_literal(create_batch.on_dead), 'NULL')
      using errcode = '22023';
  end if;
  insert into q_data.batch (callback_queue, callback_payload, on_dead)
  values (create_batch.callback_queue, create_batch.callback_payload,
          case create_batch.on_dead when 'fire' then 'f' else 'w' end)
  returning q_data.batch.id into v_id;
  return v_id;
end
$$;

comment on function q.create_batch(text, jsonb, text) is
  'Creates an open batch and returns its id. Jobs join it with q.enqueue_after(..., batch => id) or "batch" in q.enqueue_flow; after q.seal_batch, once every member has ended (on_dead wait) or at the first dead member (on_dead fire), one callback job is enqueued on callback_queue with callback_payload plus {"batch": {"id": id, "completed": n, "dead": n, "cancelled": n}}.';

revoke all on function q.create_batch(text, jsonb, text) from public;
grant execute on function q.create_batch(text, jsonb, text) to pgq_producer;
