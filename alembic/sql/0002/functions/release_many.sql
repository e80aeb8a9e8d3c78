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
begin
  perform q.check_claims(release_many.ids, release_many.tokens);
  -- Same as q.release, for a worker's whole batch in one statement.
  with released as (
    update q.job j
       set state = 'w',
           attempt = greatest(j.attempt - 1, 0),
           token = null,
           lease_until = null,
           owner = null
      from q.current_claims(release_many.ids, release_many.tokens) as r
     where j.ctid = r.job_ctid
       and j.token = r.token  -- again: the row may have a new version
    returning j.id, j.queue_id
  )
  select array_agg(x.id), array_agg(distinct x.queue_id)
    into v_released, v_queue_ids
    from released x;
  perform q.notify_queues(coalesce(v_queue_ids, '{}'));
  return query select unnest(coalesce(v_released, '{}'));
end
$$;

comment on function q.release_many(bigint[], uuid[]) is
  'q.release for many claims in one statement; returns the ids that were released (the others were not the current claim).';

revoke all on function q.release_many(bigint[], uuid[]) from public;
grant execute on function q.release_many(bigint[], uuid[]) to pgq_worker;
