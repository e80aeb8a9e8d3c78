create or replace function q.release(id bigint, token uuid)
returns boolean
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_queue_id integer;
  v_slot     smallint;
begin
  perform q.check_claim(release.id, release.token);
  -- Giving a job back is not a failure: the attempt is taken back so it does
  -- not count against max_attempts, and crashes stay as they were. run_at is
  -- kept, so the job keeps its place in line. The queue slot it held goes
  -- back: o is the row as this statement's snapshot saw it (RETURNING shows
  -- the new one), the same slot while the claim is current (only a claim sets
  -- it). Should a heartbeat have updated the row meanwhile, the recheck keeps
  -- o as it was and j's new version passes the same test.
  update q_data.job j
     set state = 'w',
         attempt = greatest(j.attempt - 1, 0),
         token = null,
         lease_until = null,
         owner = null,
         queue_slot = null
    from q_data.job o  -- the same row, found by the same index (there is no index on id alone)
   where j.id = release.id
     and j.state = 'r'
     and j.token = release.token
     and o.id = release.id
     and o.state = 'r'
     and o.token = release.token
  returning j.queue_id, o.queue_slot into v_queue_id, v_slot;
  if not found then
    return false;
  end if;
  if v_slot is not null then
    perform q.flow_free_queue_slot(v_queue_id, v_slot);
  end if;
  -- Claimable at once, so wake a listening worker (the insert trigger does
  -- not fire on update).
  perform q.notify_queues(array[v_queue_id]);
  return true;
end
$$;

comment on function q.release(bigint, uuid) is
  'Gives a claimed job back unfinished (e.g. its worker is shutting down): it is waiting again at once, in its old place in line, and the attempt does not count. Returns false (nothing changes) if (id, token) is not the current claim.';

revoke all on function q.release(bigint, uuid) from public;
grant execute on function q.release(bigint, uuid) to pgq_worker;
