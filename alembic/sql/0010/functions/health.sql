create or replace function q.health()
returns table (check_name text, object text, severity text, message text, advice text, detail jsonb)
language plpgsql
stable
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_table    record;
  v_rel      record;
  v_session  record;
  v_count    integer;
  v_naptime  interval := current_setting('autovacuum_naptime')::interval;
  v_owner    text := (select pg_catalog.pg_get_userbyid(n.nspowner) from pg_catalog.pg_namespace n where n.nspname = 'q');
  -- What pgq ships (sql/schema/030_tables.sql, 065_flow.sql, 070_observe.sql, 075_key_rate.sql
  -- and sql/server_settings.sql). pgtap/health/ checks these against a fresh install.
  v_shipped  constant jsonb := jsonb_build_object(
    'job', jsonb_build_array('autovacuum_analyze_scale_factor=0.05', 'autovacuum_vacuum_cost_delay=0',
                             'autovacuum_vacuum_insert_scale_factor=0.02', 'autovacuum_vacuum_scale_factor=0.02',
                             'autovacuum_vacuum_threshold=1000'),
    'tally', jsonb_build_array('autovacuum_vacuum_cost_delay=0', 'autovacuum_vacuum_scale_factor=0.02',
                               'autovacuum_vacuum_threshold=1000'),
    -- Flow control's slot rows: room on each page for HOT updates of job_id.
    'queue_slot', jsonb_build_array('fillfactor=50'),
    'key_slot', jsonb_build_array('fillfactor=50'),
    'rate_slot', jsonb_build_array('fillfactor=50'),
    'key_rate_slot', jsonb_build_array('fillfactor=50'));
  v_naptime_shipped constant interval := '5 seconds';
  v_options  jsonb;
  v_dead_max numeric;
  v_expected numeric;
  v_age      interval;
  -- Who called: q.health runs as pgq's owner (SECURITY DEFINER), which may
  -- read every session (pg_read_all_stats). pgq_admin (the operator, who
  -- may act on what it sees) gets every session's details; any other caller
  -- (pgq_viewer, pgq_monitor) only what pg_stat_activity would show it: its
  -- own roles' sessions, or all with pg_read_all_stats (0008, design.md#a-monitoring-role-without-payloads). The
  -- role GUC is the caller's SET ROLE (a SECURITY DEFINER call does not
  -- change it), else the session user.
  v_caller   name := coalesce(nullif(current_setting('role'), 'none'), session_user);
  v_sees_all boolean;
begin
  v_sees_all := exists (select from pg_catalog.pg_roles r where r.rolname = v_caller and r.rolsuper)
                or pg_catalog.pg_has_role(v_caller, 'pg_read_all_stats', 'usage')
                or pg_catalog.pg_has_role(v_caller, 'pgq_admin', 'usage');
  -- 1. Server settings autovacuum depends on.
  return query select 'server_settings'::text, 'autovacuum'::text,
    case when current_setting('autovacuum') = 'on' and current_setting('track_counts') = 'on' then 'ok' else 'critical' end,
    format('autovacuum = %s, track_counts = %s', current_setting('autovacuum'), current_setting('track_counts')),
    case when current_setting('autovacuum') = 'on' and current_setting('track_counts') = 'on' then ''
         else 'turn autovacuum and track_counts on (postgresql.conf): without them q_data.job fills with dead rows and claims slow down' end,
    jsonb_build_object('autovacuum', current_setting('autovacuum'), 'track_counts', current_setting('track_counts'));
  return query select 'server_settings'::text, 'autovacuum_naptime'::text,
    case when v_naptime <= v_naptime_shipped then 'ok' else 'warning' end,
    format('autovacuum_naptime = %s (pgq recommends 5s)', current_setting('autovacuum_naptime')),
    case when v_naptime <= v_naptime_shipped then ''
         else 'as a superuser: psql "$DATABASE_URL" -f sql/server_settings.sql (ALTER SYSTEM SET autovacuum_naptime = ''5s''); at 1 min a busy queue piles up dead index entries between runs' end,
    jsonb_build_object('value', current_setting('autovacuum_naptime'), 'recommended', '5s');

  -- 2. Per table: storage parameters as shipped, dead rows and (auto)vacuum
  -- times, size against live rows.
  for v_table in
    select c.oid, c.relname::text as name, c.reloptions,
           coalesce(s.n_live_tup, 0) as live, coalesce(s.n_dead_tup, 0) as dead,
           s.last_vacuum, s.last_autovacuum, s.last_analyze, s.last_autoanalyze,
           pg_catalog.pg_relation_size(c.oid) as bytes
      from pg_catalog.pg_class c
      left join pg_catalog.pg_stat_all_tables s on s.relid = c.oid
     where c.relnamespace = 'q_data'::regnamespace and c.relkind = 'r'
     order by c.relname
  loop
    if v_shipped ? v_table.name then
      v_options := coalesce(to_jsonb(array(select o from unnest(v_table.reloptions) o order by o)), '[]');
      return query select 'table_settings'::text, 'q_data.' || v_table.name,
        case when v_options = v_shipped -> v_table.name then 'ok' else 'warning' end,
        case when v_options = v_shipped -> v_table.name then 'storage parameters are the shipped ones'
             else format('storage parameters differ from the shipped ones: %s', v_options) end,
        case when v_options = v_shipped -> v_table.name then ''
             else format('ALTER TABLE q_data.%I RESET (...) then SET (%s)', v_table.name,
                         (select string_agg(x, ', ') from jsonb_array_elements_text(v_shipped -> v_table.name) x)) end,
        jsonb_build_object('current', v_options, 'shipped', v_shipped -> v_table.name);
    end if;

    -- The point where autovacuum should have run, by its own rule: the
    -- table's autovacuum_vacuum_threshold + scale_factor x live rows (its
    -- storage parameters, else the server's settings); 5x that is late.
    v_dead_max := coalesce((select split_part(o, '=', 2)::numeric from unnest(v_table.reloptions) o
                             where o like 'autovacuum\_vacuum\_threshold=%'),
                           current_setting('autovacuum_vacuum_threshold')::numeric)
                  + coalesce((select split_part(o, '=', 2)::numeric from unnest(v_table.reloptions) o
                               where o like 'autovacuum\_vacuum\_scale\_factor=%'),
                             current_setting('autovacuum_vacuum_scale_factor')::numeric) * v_table.live;
    return query select 'vacuum'::text, 'q_data.' || v_table.name,
      case when v_table.dead > 25 * v_dead_max then 'critical'
           when v_table.dead > 5 * v_dead_max then 'warning' else 'ok' end,
      format('%s dead / %s live rows; last autovacuum %s, last autoanalyze %s', v_table.dead, v_table.live,
             coalesce(v_table.last_autovacuum::text, 'never'), coalesce(v_table.last_autoanalyze::text, 'never')),
      case when v_table.dead > 5 * v_dead_max
           then format('autovacuum is behind on q_data.%s: look at the xmin_horizon rows (an old transaction stops vacuum), check autovacuum_naptime, or run VACUUM q_data.%s', v_table.name, v_table.name)
           else '' end,
      jsonb_build_object('dead_rows', v_table.dead, 'live_rows', v_table.live,
                         'last_vacuum', v_table.last_vacuum, 'last_autovacuum', v_table.last_autovacuum,
                         'last_analyze', v_table.last_analyze, 'last_autoanalyze', v_table.last_autoanalyze);

    -- Size against what the live rows need (average row width from
    -- ANALYZE's statistics plus 28 bytes of header and line pointer, 90% full).
    -- Space a queue frees is reused, so only a table many times larger than
    -- its rows is worth action.
    v_expected := 8192 + v_table.live * (28 + coalesce(
      (select sum(st.avg_width) from pg_catalog.pg_stats st
        where st.schemaname = 'q_data' and st.tablename = v_table.name), 64)) / 0.9;
    return query select 'bloat'::text, 'q_data.' || v_table.name,
      case when v_table.bytes > 8 * 1024 * 1024 and v_table.bytes > 10 * v_expected then 'warning' else 'ok' end,
      format('%s for %s live rows (about %s needed)', pg_catalog.pg_size_pretty(v_table.bytes), v_table.live,
             pg_catalog.pg_size_pretty(v_expected::bigint)),
      case when v_table.bytes > 8 * 1024 * 1024 and v_table.bytes > 10 * v_expected
           then format('q_data.%s is mostly free space (after a backlog drained, or vacuum was held back); it is reused as jobs arrive. To give it back: pg_repack, or VACUUM FULL q_data.%s (locks the table)', v_table.name, v_table.name)
           else '' end,
      jsonb_build_object('bytes', v_table.bytes, 'live_rows', v_table.live, 'expected_bytes', round(v_expected));

    for v_rel in
      select i.indexrelid::regclass::text as name, pg_catalog.pg_relation_size(i.indexrelid) as bytes,
             greatest(ic.reltuples, 0) as entries
        from pg_catalog.pg_index i join pg_catalog.pg_class ic on ic.oid = i.indexrelid
       where i.indrelid = v_table.oid
       order by 1
    loop
      -- A btree entry: 8-byte tuple header, 4-byte line pointer, the key.
      v_expected := 16384 + v_rel.entries * 40 / 0.9;
      return query select 'bloat'::text, v_rel.name,
        case when v_rel.bytes > 8 * 1024 * 1024 and v_rel.bytes > 10 * v_expected then 'warning' else 'ok' end,
        format('%s for about %s entries (about %s needed)', pg_catalog.pg_size_pretty(v_rel.bytes), round(v_rel.entries),
               pg_catalog.pg_size_pretty(v_expected::bigint)),
        case when v_rel.bytes > 8 * 1024 * 1024 and v_rel.bytes > 10 * v_expected
             then format('REINDEX INDEX CONCURRENTLY %s', v_rel.name) else '' end,
        jsonb_build_object('bytes', v_rel.bytes, 'entries', round(v_rel.entries), 'expected_bytes', round(v_expected));
    end loop;
  end loop;

  -- 3. The xmin horizon: while a transaction (or prepared transaction, or
  -- replication slot) that started before a job finished is still open,
  -- vacuum cannot remove that job's dead row versions, and claims walk over
  -- more of them every second. Only sessions of this database count.
  v_count := 0;
  for v_session in
    select a.pid, a.usename::text as usename, a.application_name::text as app, a.state, a.backend_type,
           v_sees_all or coalesce(pg_catalog.pg_has_role(v_caller, a.usesysid, 'usage'), false) as shown,
           a.xact_start, clock_timestamp() - a.xact_start as xact_age,
           pg_catalog.age(coalesce(a.backend_xmin, a.backend_xid)) as xid_age,
           a.state like 'idle in transaction%' as idle_in_transaction,
           clock_timestamp() - a.state_change as state_age
      from pg_catalog.pg_stat_activity a
     where a.datname = pg_catalog.current_database()
       and a.pid <> pg_catalog.pg_backend_pid()
       and (a.backend_xmin is not null or a.backend_xid is not null)
       -- A statement in flight for under a second is a queue at work.
       and (a.state like 'idle in transaction%' or clock_timestamp() - a.xact_start >= interval '1 second')
     order by a.xact_start nulls last
  loop
    v_count := v_count + 1;
    v_age := coalesce(v_session.xact_age, interval '0');
    if not v_session.shown then
      -- Another role's session the caller may not inspect (0008, design.md#a-monitoring-role-without-payloads):
      -- how bad it is (for an alert), not who, what or since when.
      return query select 'xmin_horizon'::text, format('pid %s', v_session.pid),
        case when v_age >= interval '10 minutes' then 'critical'
             when v_age >= interval '1 minute' then 'warning' else 'info' end,
        format('pid %s, a session of a role whose sessions you may not inspect, holds back vacuum', v_session.pid),
        'the details (user, application, ages) show to a role with pg_read_all_stats, or of that session''s role'::text,
        jsonb_build_object('pid', v_session.pid, 'hidden', true);
      continue;
    end if;
    return query select 'xmin_horizon'::text, format('pid %s', v_session.pid),
      case when v_age >= interval '10 minutes' then 'critical'
           when v_age >= interval '1 minute' then 'warning' else 'info' end,
      format('pid %s (%s%s) has held a snapshot for %s (%s xids)%s', v_session.pid, coalesce(v_session.usename, '?'),
             coalesce(', ' || quote_literal(nullif(v_session.app, '')), ''), date_trunc('second', v_age), v_session.xid_age,
             case when v_session.idle_in_transaction then format(', idle in transaction for %s', date_trunc('second', v_session.state_age))
                  else format(', state %s', coalesce(v_session.state, 'unknown')) end),
      case when v_session.idle_in_transaction
           then format('vacuum cannot clean up after it: end that transaction in the application, or SELECT pg_terminate_backend(%s); set idle_in_transaction_session_timeout', v_session.pid)
           else format('a long transaction holds back vacuum of q_data.job: keep transactions short, or SELECT pg_cancel_backend(%s)', v_session.pid) end,
      jsonb_build_object('pid', v_session.pid, 'user', v_session.usename, 'application_name', v_session.app,
                         'state', v_session.state, 'idle_in_transaction', v_session.idle_in_transaction,
                         'xact_start', v_session.xact_start, 'xact_age_seconds', round(extract(epoch from v_age)::numeric, 3),
                         'xid_age', v_session.xid_age, 'backend_type', v_session.backend_type);
  end loop;

  for v_session in
    select p.gid, p.prepared, p.owner::text as owner, pg_catalog.age(p.transaction) as xid_age
      from pg_catalog.pg_prepared_xacts p
     where p.database = pg_catalog.current_database()
  loop
    v_count := v_count + 1;
    return query select 'xmin_horizon'::text, format('prepared transaction %s', quote_literal(v_session.gid)),
      case when clock_timestamp() - v_session.prepared >= interval '1 minute' then 'critical' else 'warning' end,
      format('prepared transaction %s of %s, prepared at %s (%s xids ago), holds back vacuum',
             quote_literal(v_session.gid), v_session.owner, v_session.prepared, v_session.xid_age),
      format('COMMIT PREPARED %L or ROLLBACK PREPARED %L', v_session.gid, v_session.gid),
      jsonb_build_object('gid', v_session.gid, 'prepared', v_session.prepared, 'owner', v_session.owner,
                         'xid_age', v_session.xid_age);
  end loop;

  for v_session in
    select s.slot_name::text as slot_name, s.active, s.slot_type,
           pg_catalog.age(s.xmin) as xmin_age, pg_catalog.age(s.catalog_xmin) as catalog_xmin_age
      from pg_catalog.pg_replication_slots s
     where s.xmin is not null and (s.database is null or s.database = pg_catalog.current_database())
  loop
    v_count := v_count + 1;
    return query select 'xmin_horizon'::text, format('replication slot %s', quote_literal(v_session.slot_name)),
      case when v_session.active then 'info' else 'critical' end,
      format('%s replication slot %s (%s) holds xmin %s xids back', v_session.slot_type, quote_literal(v_session.slot_name),
             case when v_session.active then 'active' else 'inactive' end, v_session.xmin_age),
      case when v_session.active then 'a standby with hot_standby_feedback holds back vacuum while its queries run'
           else format('an inactive slot holds back vacuum forever: SELECT pg_drop_replication_slot(%L) if it is not needed', v_session.slot_name) end,
      jsonb_build_object('slot_name', v_session.slot_name, 'active', v_session.active, 'xmin_age', v_session.xmin_age);
  end loop;

  if v_count = 0 then
    return query select 'xmin_horizon'::text, 'sessions'::text, 'ok'::text,
      'no session, prepared transaction or replication slot holds back vacuum'::text, ''::text, '{}'::jsonb;
  end if;

  -- Sessions of other roles whose details pg_stat_activity hides from the
  -- owner of schema q: they may hold back the horizon unseen.
  select count(*) into v_count
    from pg_catalog.pg_stat_activity a
   where a.datname = pg_catalog.current_database() and a.pid <> pg_catalog.pg_backend_pid()
     and a.backend_type = 'client backend' and a.state is null;
  if v_count > 0 then
    return query select 'xmin_horizon'::text, 'hidden sessions'::text, 'info'::text,
      format('%s session(s) of other roles are not visible to %s, the owner of schema q', v_count, v_owner),
      format('GRANT pg_read_all_stats TO %I; so q.health can see every session', v_owner),
      jsonb_build_object('hidden_sessions', v_count, 'schema_owner', v_owner);
  end if;
end
$$;

comment on function q.health() is
  'What keeps a queue fast, one row per check and object: check_name (server_settings, table_settings, vacuum, bloat, xmin_horizon), object, severity (ok, info, warning, critical), a sentence, one line of advice, details as JSON. Runs as the owner of schema q: to see other roles'' sessions that owner needs pg_read_all_stats (or superuser). pgq_admin sees every session''s details; another caller (pgq_viewer, pgq_monitor) sees another role''s session (user, application, state, ages) only where pg_stat_activity would show it (its own roles, or pg_read_all_stats), otherwise only its pid and severity.';

revoke all on function q.health() from public;
grant execute on function q.health() to pgq_viewer, pgq_monitor;
