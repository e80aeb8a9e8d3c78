create or replace function q.ensure_queue(queue text)
returns q_data.queue
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_queue q_data.queue;
begin
  select * into v_queue from q_data.queue qq where qq.name = ensure_queue.queue;
  if found then
    return v_queue;
  end if;

  perform q.check_queue_name(ensure_queue.queue);
  -- Two first enqueues may race: the loser waits for the winner's row.
  insert into q_data.queue (name) values (ensure_queue.queue)
  on conflict (name) do nothing
  returning * into v_queue;
  if v_queue.id is null then
    select * into v_queue from q_data.queue qq where qq.name = ensure_queue.queue;
    if not found then
      -- Only possible under REPEATABLE READ, whose snapshot predates the winner.
      raise exception 'queue % was created concurrently; retry the transaction', quote_literal(ensure_queue.queue)
        using errcode = '40001';
    end if;
  end if;
  return v_queue;
end
$$;

comment on function q.ensure_queue(text) is
  'The settings row of a queue, created with the defaults on first use.';

revoke all on function q.ensure_queue(text) from public;
