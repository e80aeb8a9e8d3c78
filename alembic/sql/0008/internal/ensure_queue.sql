create or replace function q.ensure_queue(queue text)
returns q_data.queue
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_queue q_data.queue;
begin
  -- q.reap deletes idle queues (q.forget_idle_queues). So that a job never
  -- commits pointing at a deleted queue, every caller that goes on to insert
  -- jobs holds, from before it reads the row until it commits, a SHARED
  -- advisory lock on the name's bucket (class 1885827329, hashtext(name) & 15:
  -- at most 16 locks per transaction), which the deleter takes EXCLUSIVELY
  -- without waiting. It never waits either: when the bucket is taken (the
  -- deleter, or any role holding it), or when the transaction's snapshot is
  -- older than this statement (REPEATABLE READ, SERIALIZABLE), it locks the
  -- row itself FOR KEY SHARE instead (a deleted row then reads as missing, or
  -- raises 40001). Only that fallback writes (a row lock).
  if current_setting('transaction_isolation') = 'read committed'
     and pg_try_advisory_xact_lock_shared(1885827329, hashtext(ensure_queue.queue) & 15) then
    select * into v_queue from q_data.queue qq where qq.name = ensure_queue.queue;
  else
    select * into v_queue from q_data.queue qq where qq.name = ensure_queue.queue for key share;
  end if;
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
  'The settings row of a queue, created with the defaults on first use; the caller may insert jobs for it until it commits (q.reap will not delete it meanwhile).';

revoke all on function q.ensure_queue(text) from public;
