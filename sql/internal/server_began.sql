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
    -- session registered before that ended with it; sessions registered since
    -- (workers that reconnected before this first reap) have not. A promoted
    -- standby replayed sessions its old primary registered after this
    -- postmaster started (registered_at and pg_last_xact_replay_timestamp()
    -- are both the old primary's clock): those ended with the old primary, so
    -- it began serving no later than now, when its first reaper notices.
    -- (Before 0009 was refrozen, any session registered after the postmaster
    -- start meant a promotion: a database copied from a template made under
    -- an earlier postmaster gave the restart grace to its own sessions that
    -- had just ended, and their claims waited 30 s.)
    v_row.began_at := case
      when exists (select from q_data.session x
                    where x.registered_at >= v_start
                      and x.registered_at <= pg_last_xact_replay_timestamp()) then clock_timestamp()
      else v_start
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
