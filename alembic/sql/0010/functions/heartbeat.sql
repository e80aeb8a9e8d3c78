create or replace function q.heartbeat(id bigint, token uuid, lease interval default null, progress jsonb default null)
returns text
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_queue record;
begin
  perform q.check_claim(heartbeat.id, heartbeat.token);
  if heartbeat.progress is not null and q.payload_size(heartbeat.progress) > 65536 then
    raise exception 'progress of job % is % bytes, over the 65536-byte limit', heartbeat.id, q.payload_size(heartbeat.progress)
      using errcode = '54000', hint = 'progress is a small status (a count, a step name); return large data as the result';
  end if;
  if heartbeat.lease <= interval '0' then
    raise exception 'lease must be positive, got %', heartbeat.lease
      using errcode = '22023';
  end if;
  -- One statement: the queue row gives the default lease and the cap. A
  -- lease over the cap raises after the update, which rolls it back with the
  -- statement (no second look-up of the job). A stale token's heartbeat says
  -- 'lost' whatever its lease, and its progress is not written.
  -- Progress (design.md#results-and-dependencies) rides on the same UPDATE: NULL leaves the column as
  -- it is, so a heartbeat without progress costs what it did.
  update q_data.job j
     set lease_until = clock_timestamp() + coalesce(heartbeat.lease, qq.lease),
         progress = coalesce(heartbeat.progress, j.progress)
    from q_data.queue qq
   where qq.id = j.queue_id
     and j.id = heartbeat.id and j.state = 'r' and j.token = heartbeat.token
  returning qq.name, qq.max_lease into v_queue;
  if found and heartbeat.lease > v_queue.max_lease then
    raise exception 'lease % is longer than queue %''s max_lease %', heartbeat.lease, quote_literal(v_queue.name),
      v_queue.max_lease
      using errcode = '22023',
            hint = 'heartbeat more often, or raise the cap: q.configure(queue, max_lease => ...)';
  end if;
  if found then
    return 'running';
  end if;
  -- Only the claim that was cancelled hears so; any other token is 'lost'.
  if exists (select from q_data.job_history h
              where h.id = heartbeat.id and h.state = 'cancelled' and h.token = heartbeat.token) then
    return 'cancelled';
  end if;
  return 'lost';
end
$$;

comment on function q.heartbeat(bigint, uuid, interval, jsonb) is
  'Extends a claim''s lease (by lease, default the queue''s) and tells the worker whether to go on: ''running'', ''cancelled'' (stop: q.cancel was called while this claim held the job) or ''lost'' (any other token: the claim was reaped or taken over, or never existed; stop, the result will be refused). progress (jsonb, NULL: unchanged) is stored with the claim in the same update, kept across retries and read with q.result / q.explain; at most 64 kB (54000).';

revoke all on function q.heartbeat(bigint, uuid, interval, jsonb) from public;
grant execute on function q.heartbeat(bigint, uuid, interval, jsonb) to pgq_worker;
