create or replace function q.release_many(ids bigint[], tokens uuid[])
returns setof bigint
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_released  bigint[];
  v_queue_ids integer[];
  v_slot_qs   integer[];
  v_slots     smallint[];
begin
  perform q.check_claims(release_many.ids, release_many.tokens);
  -- Same as q.release, for a worker's whole batch in one statement.
  with released as (
    update q_data.job j
       set state = 'w',
           attempt = greatest(j.attempt - 1, 0),
           token = null,
           lease_until = null,
           owner = null,
           queue_slot = null
      from q.current_claims(release_many.ids, release_many.tokens) as r,
           q_data.job o  -- the row as it was, for the queue slot it held
     where j.ctid = r.job_ctid
       and j.token = r.token
       and o.ctid = r.job_ctid
    returning j.id, j.queue_id, o.queue_slot
  )
  select coalesce(array_agg(x.id), '{}'), coalesce(array_agg(distinct x.queue_id), '{}'),
         array_agg(x.queue_id) filter (where x.queue_slot is not null),
         array_agg(x.queue_slot) filter (where x.queue_slot is not null)
    into v_released, v_queue_ids, v_slot_qs, v_slots
    from released x;
  -- Queues with a concurrency limit: the slots go back.
  perform q.flow_free_queue_slot(s.queue_id, s.n) from unnest(v_slot_qs, v_slots) as s(queue_id, n);
  perform q.notify_queues(v_queue_ids);
  -- Rows updated while this statement waited for them (see complete_many),
  -- and stale claims, go one by one.
  if cardinality(v_released) < cardinality(release_many.ids) then
    v_released := v_released || array(
      select r.id from unnest(release_many.ids, release_many.tokens) as r(id, token)
       where r.id <> all(v_released) and r.token is not null and q.release(r.id, r.token));
  end if;
  return query select unnest(v_released);
end
$$;

comment on function q.release_many(bigint[], uuid[]) is
  'q.release for many claims in one statement; returns the ids that were released (the others were not the current claim).';

revoke all on function q.release_many(bigint[], uuid[]) from public;
grant execute on function q.release_many(bigint[], uuid[]) to pgq_worker;
