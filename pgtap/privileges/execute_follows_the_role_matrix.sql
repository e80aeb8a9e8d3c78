-- The documented privilege matrix, for every function in q and the four
-- roles plus PUBLIC: producer enqueues; worker claims, finishes, heartbeats,
-- releases, reaps; viewer reads (stats, jobs, throughput, explain, health, job_page,
-- schedules, limits, flow_block_reason); monitor (0008) reads only what carries no
-- payload, error or session detail (stats, throughput, throughput_totals, limits,
-- health), granted to it directly and to the viewer through membership;
-- admin has all three through membership plus the admin calls;
-- PUBLIC has nothing; internal functions belong to the owner alone.
begin;
select plan(795);

create temp table matrix (fn name primary key, producer boolean, worker boolean, admin boolean, viewer boolean);
insert into matrix values
  ('enqueue',                 true,  false, true,  false),
  ('enqueue_many',            true,  false, true,  false),
  ('enqueue_after',           true,  false, true,  false),
  ('enqueue_flow',            true,  false, true,  false),
  ('create_batch',            true,  false, true,  false),
  ('seal_batch',              true,  false, true,  false),
  ('unblock',                 false, false, true,  false),
  ('parents',                 false, true,  true,  false),
  ('job_graph',               false, false, true,  true),
  ('batch',                   false, false, true,  true),
  ('deps_bad_policy',         false, false, false, false),
  ('deps_policy',             false, false, false, false),
  ('deps_check_parents',      false, false, false, false),
  ('deps_mark_parents',       false, false, false, false),
  ('batch_join',              false, false, false, false),
  ('batch_try_fire',          false, false, false, false),
  ('batch_member_ended',      false, false, false, false),
  ('deps_resolve',            false, false, false, false),
  ('deps_rejoin',             false, false, false, false),
  ('deps_explain',            false, false, false, false),
  ('session_key',             false, true,  true,  false),
  ('claim',                   false, true,  true,  false),
  ('claim_explained',         false, true,  true,  false),
  ('complete',                false, true,  true,  false),
  ('complete_many',           false, true,  true,  false),
  ('fail',                    false, true,  true,  false),
  ('fail_many',               false, true,  true,  false),
  ('heartbeat',               false, true,  true,  false),
  ('heartbeat_many',          false, true,  true,  false),
  ('release',                 false, true,  true,  false),
  ('release_many',            false, true,  true,  false),
  ('reap',                    false, true,  true,  false),
  ('adopt',                   false, true,  true,  false),
  ('stop_waiting',            false, true,  true,  false),
  ('cancel',                  false, false, true,  false),
  ('retry',                   false, false, true,  false),
  ('pause',                   false, false, true,  false),
  ('resume',                  false, false, true,  false),
  ('configure',               false, false, true,  false),
  ('stats',                   false, false, true,  true),
  ('jobs',                    false, false, true,  true),
  ('schedule',                false, false, true,  false),
  ('unschedule',              false, false, true,  false),
  ('pause_schedule',          false, false, true,  false),
  ('resume_schedule',         false, false, true,  false),
  ('schedules',               false, false, true,  true),
  ('lock_space',              false, false, false, false),
  ('check_queue_name',        false, false, false, false),
  ('check_queue_settings',    false, false, false, false),
  ('check_job_options',       false, false, false, false),
  ('check_claim',             false, false, false, false),
  ('check_claims',            false, false, false, false),
  ('current_claims',          false, false, false, false),
  ('ensure_queue',            false, false, false, false),
  ('notify_queues',           false, false, false, false),
  ('notify_always',           false, false, false, false),
  ('note_wait',               false, false, false, false),
  ('error_entry',             false, false, false, false),
  ('lost_reason',             false, false, false, false),
  ('finish',                  false, false, false, false),
  ('backoff',                 false, false, false, false),
  ('promote_due',             false, false, false, false),
  ('claim_under_snapshot',    false, false, false, false),
  ('tg_job__notify_enqueued', false, false, false, false),
  ('flow_block_reason',       false, false, true,  true),
  ('limits',                  false, false, true,  true),
  ('busy_keys',               false, false, true,  true),
  ('check_concurrency_key',   false, false, false, false),
  ('flow_take_key_slot',      false, false, false, false),
  ('flow_pass_key_slot',      false, false, false, false),
  ('flow_sweep',              false, false, false, false),
  ('flow_claim_jobs',         false, false, false, false),
  ('flow_claim_keyed',        false, false, false, false),
  ('flow_claim',              false, false, false, false),
  ('flow_add_key_slot',       false, false, false, false),
  ('flow_add_key_rate_slot',  false, false, false, false),
  ('flow_configure',          false, false, false, false),
  ('tg_job__flow',            false, false, false, false),
  ('job_ended',               false, false, false, false),
  ('flow_want',               false, false, false, false),
  ('flow_wake',               false, false, false, false),
  ('flow_reasons',            false, false, false, false),
  ('flow_free_queue_slot',    false, false, false, false),
  ('flow_admit',              false, false, false, false),
  ('notify_allowed',          false, false, false, false),
  ('gone_owners',             false, false, false, false),
  ('forget_ended_sessions',   false, false, false, false),
  ('forget_idle_queues',      false, false, false, false),
  ('append_error',            false, false, false, false),
  ('payload_size',            false, false, false, false),
  ('promote_all_due',         false, false, false, false),
  ('pending_tally',           false, false, false, false),
  ('purge_deps',              false, false, false, false),
  ('purge_history',           false, false, false, false),
  ('purge_receipts',          false, false, false, false),
  ('schedule_now',            false, false, false, false),
  ('cron_value',              false, false, false, false),
  ('cron_field',              false, false, false, false),
  ('cron_parse',              false, false, false, false),
  ('cron_next',               false, false, false, false),
  ('cron_longest_gap',        false, false, false, false),
  ('cron_prev',               false, false, false, false),
  ('next_slot',               false, false, false, false),
  ('prev_slot',               false, false, false, false),
  ('fire_slot',               false, false, false, false),
  ('fire_schedules',          false, false, false, false),
  ('throughput',              false, false, true,  true),
  ('throughput_totals',       false, false, true,  true),
  ('explain',                 false, false, true,  true),
  ('health',                  false, false, true,  true),
  ('job_page',                false, false, true,  true),
  ('retry_dead',              false, false, true,  false),
  ('cancel_jobs',             false, false, true,  false),
  ('purge',                   false, false, true,  false),
  ('delete_queue',            false, false, true,  false),
  ('allow_test_clock',        false, false, true,  false),
  ('tally',                   false, false, false, false),
  ('roll_up_tally',           false, false, false, false),
  ('estimate_rows',           false, false, false, false),
  ('claim_holder',            false, false, false, false),
  ('queue_named',             false, false, false, false),
  ('check_max_rows',          false, false, false, false),
  ('lock_wait_failed',        false, false, false, false),
  ('restart_grace',           false, false, false, false),
  ('server_began',            false, false, false, false),
  -- results (design.md#results-and-dependencies): read by whoever may enqueue, work or view; awaited by producers and workers
  ('result',                  true,  true,  true,  true),
  ('results',                 true,  true,  true,  true),
  ('await_results',           true,  true,  true,  false),
  ('wake_result_waiters',     false, false, false, false),
  ('keep_result',             false, false, false, false),
  ('purge_results',           false, false, false, false),
  -- q.parent_results: a child's inputs, read by its worker
  ('parent_results',          false, true,  true,  false);

-- pgq_monitor's functions (all of them also the viewer's).
create temp table monitored (fn name primary key);
insert into monitored values ('stats'), ('throughput'), ('throughput_totals'), ('limits'), ('health');

-- The matrix covers every function (a new one must be placed in it).
select is(
  array(select p.oid::regprocedure::text from pg_catalog.pg_proc p
         where p.pronamespace = 'q'::regnamespace
           and p.proname not in (select fn from matrix)
         order by 1),
  '{}'::text[],
  'every function in q has a row in the privilege matrix');

-- 100 functions x 6 grantees, through has_function_privilege (membership counts).
select function_privs_are(
         'q', p.proname,
         array(select pg_catalog.format_type(t, null) from unnest(p.proargtypes::oid[]) with ordinality a(t, i) order by i)::name[],
         r.role,
         case when r.allowed then '{EXECUTE}' else '{}' end::name[],
         format('%s %s execute %s', r.role, case when r.allowed then 'may' else 'may not' end, p.oid::regprocedure))
  from pg_catalog.pg_proc p
  join matrix m on m.fn = p.proname
  cross join lateral (values ('pgq_producer'::name, m.producer),
                             ('pgq_worker'::name, m.worker),
                             ('pgq_admin'::name, m.admin),
                             ('pgq_viewer'::name, m.viewer),
                             ('pgq_monitor'::name, m.fn in (select fn from monitored)),
                             ('public'::name, false)) r(role, allowed)
 where p.pronamespace = 'q'::regnamespace
 order by p.proname, r.role;

-- Direct grants are exactly one role per public function (the results reads
-- and q.await_results are granted to each role that calls them) (admin reaches the
-- producer and worker calls through membership, not through extra grants),
-- and none at all for internal functions: nobody but the owner.
select results_eq(
  $$ select p.proname::text collate "default",
            coalesce(array(select a.grantee::regrole::text from aclexplode(p.proacl) a
                            where a.grantee <> p.proowner order by 1), '{}')
       from pg_catalog.pg_proc p
      where p.pronamespace = 'q'::regnamespace
      order by 1 $$,
  $$ select m.fn::text collate "default",
            case when m.producer and m.worker and m.viewer then array['pgq_producer', 'pgq_viewer', 'pgq_worker']
                 when m.producer and m.worker then array['pgq_producer', 'pgq_worker']
                 when m.producer and not m.worker then array['pgq_producer']
                 when m.worker and not m.producer then array['pgq_worker']
                 when m.fn in (select fn from monitored) then array['pgq_monitor', 'pgq_viewer']
                 when m.viewer then array['pgq_viewer']
                 when m.admin then array['pgq_admin']
                 else '{}' end
       from matrix m
      order by 1 $$,
  'each function is granted to its one documented role and to nobody else');

-- A NULL proacl would mean the default: EXECUTE for PUBLIC.
select is(
  array(select p.oid::regprocedure::text from pg_catalog.pg_proc p
         where p.pronamespace = 'q'::regnamespace and p.proacl is null order by 1),
  '{}'::text[],
  'no function in q is left with the default ACL (which grants PUBLIC)');

select * from finish();
rollback;
