create or replace function q.unblock(id bigint)
returns boolean
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
set lock_timeout = '2s'
as $$
declare
  v_now    timestamptz := clock_timestamp();
  v_queue  text;
  v_state  "char";
  v_keyed  boolean;
  v_ctid   tid;
begin
  if unblock.id is null then
    raise exception 'job id must not be null' using errcode = '22004';
  end if;
  -- An operator's answer to the hold policy: the job goes on as if its
  -- failed parents had completed (it still waits for parents not ended yet).
  update q_data.job j
     set state = case when j.parents_left > 0 then 'p' when j.run_at > v_now then 's' else 'w' end
   where j.id = unblock.id and j.state = 'o'
  returning (select qq.name from q_data.queue qq where qq.id = j.queue_id), j.state, j.concurrency_key is not null, j.ctid
       into v_queue, v_state, v_keyed, v_ctid;
  if not found then
    return false;
  end if;
  -- A keyed job takes a key slot or is held (q.flow_admit).
  if v_state = 'w' and v_keyed then
    if q.flow_admit(array[v_ctid]) > 0 then
      v_state := 'h';
    end if;
  end if;
  if v_state = 'w' and q.notify_allowed() then
    perform pg_notify('pgq', v_queue);
  end if;
  return true;
exception when lock_not_available then
  perform q.lock_wait_failed('q.unblock', format('job %s', unblock.id));
end
$$;

comment on function q.unblock(bigint) is
  'Lets a job on hold (a parent died or was cancelled under the hold policy) go on: waiting (or scheduled, or pending if some parents have not ended). false if the job is not on hold.';

revoke all on function q.unblock(bigint) from public;
grant execute on function q.unblock(bigint) to pgq_admin;
