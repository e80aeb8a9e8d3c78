-- When the server this runs on began serving (see q_data.server_start).
-- Called by the reaper's helpers (q.gone_owners, q.forget_ended_sessions)
-- while q.reap holds its turn, so one caller at a time updates the row.
create or replace function q.server_began()
returns timestamptz
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_start  timestamptz := pg_postmaster_start_time();
  v_row    q_data.server_start;
begin
  select * into v_row from q_data.server_start s where s.id;
  if not found then
    insert into q_data.server_start (postmaster_start, began_at)
    values (v_start, v_start)
    on conflict (id) do nothing;
    return v_start;
  end if;
  if v_row.postmaster_start is distinct from v_start then
    -- A restart: the server began when its postmaster started, and every
    -- session registered before that ended with it. A promoted standby may
    -- have started before some of its old primary's sessions registered (a
    -- session newer than its start): then it began serving no later than
    -- now, when its first reaper notices. (A session of the new server that
    -- registered before this call is alive, or gets the grace for nothing.)
    v_row.began_at := case
      when not exists (select from q_data.session x where x.registered_at >= v_start) then v_start
      else clock_timestamp()
    end;
    update q_data.server_start s
       set postmaster_start = v_start,
           began_at = v_row.began_at
     where s.id;
  end if;
  return v_row.began_at;
end
$$;

comment on function q.server_began() is
  'When the server began serving: its postmaster start after a restart, or when the reaper first ran after a promotion (kept in q_data.server_start). Sessions registered earlier ended with the server.';

revoke all on function q.server_began() from public;
