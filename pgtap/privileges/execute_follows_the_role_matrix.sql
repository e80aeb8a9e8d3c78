-- The documented privilege matrix, for every function in q and the three
-- roles plus PUBLIC: producer enqueues; worker claims, finishes, heartbeats,
-- releases, reaps; admin has both through membership plus the admin calls;
-- PUBLIC has nothing; internal functions belong to the owner alone.
begin;
select plan(291);

create temp table matrix (fn name primary key, producer boolean, worker boolean, admin boolean);
insert into matrix values
  ('enqueue',                 true,  false, true),
  ('enqueue_many',            true,  false, true),
  ('session_key',             false, true,  true),
  ('claim',                   false, true,  true),
  ('complete',                false, true,  true),
  ('complete_many',           false, true,  true),
  ('fail',                    false, true,  true),
  ('fail_many',               false, true,  true),
  ('heartbeat',               false, true,  true),
  ('heartbeat_many',          false, true,  true),
  ('release',                 false, true,  true),
  ('release_many',            false, true,  true),
  ('reap',                    false, true,  true),
  ('cancel',                  false, false, true),
  ('retry',                   false, false, true),
  ('pause',                   false, false, true),
  ('resume',                  false, false, true),
  ('configure',               false, false, true),
  ('stats',                   false, false, true),
  ('jobs',                    false, false, true),
  ('schedule',                false, false, true),
  ('unschedule',              false, false, true),
  ('pause_schedule',          false, false, true),
  ('resume_schedule',         false, false, true),
  ('schedules',               false, false, true),
  ('lock_space',              false, false, false),
  ('check_queue_name',        false, false, false),
  ('check_job_options',       false, false, false),
  ('check_claim',             false, false, false),
  ('check_claims',            false, false, false),
  ('current_claims',          false, false, false),
  ('ensure_queue',            false, false, false),
  ('notify_queues',           false, false, false),
  ('error_entry',             false, false, false),
  ('lost_reason',             false, false, false),
  ('finish',                  false, false, false),
  ('backoff',                 false, false, false),
  ('promote_due',             false, false, false),
  ('claim_under_snapshot',    false, false, false),
  ('tg_job__notify_enqueued', false, false, false),
  ('flow_block_reason',       false, false, true),
  ('limits',                  false, false, true),
  ('check_concurrency_key',   false, false, false),
  ('flow_take_key_slot',      false, false, false),
  ('flow_pass_key_slot',      false, false, false),
  ('flow_sweep',              false, false, false),
  ('flow_claim_jobs',         false, false, false),
  ('flow_claim',              false, false, false),
  ('flow_configure',          false, false, false),
  ('tg_job__flow_admit',      false, false, false),
  ('tg_job__flow_stop',       false, false, false),
  ('tg_job__flow_finish',     false, false, false),
  ('flow_want',               false, false, false),
  ('flow_wake',               false, false, false),
  ('notify_allowed',          false, false, false),
  ('gone_owners',             false, false, false),
  ('forget_ended_sessions',   false, false, false),
  ('append_error',            false, false, false),
  ('payload_size',            false, false, false),
  ('promote_all_due',         false, false, false),
  ('purge_history',           false, false, false),
  ('purge_receipts',          false, false, false),
  ('schedule_now',            false, false, false),
  ('cron_value',              false, false, false),
  ('cron_field',              false, false, false),
  ('cron_parse',              false, false, false),
  ('cron_next',               false, false, false),
  ('cron_prev',               false, false, false),
  ('next_slot',               false, false, false),
  ('prev_slot',               false, false, false),
  ('fire_slot',               false, false, false),
  ('fire_schedules',          false, false, false);

-- The matrix covers every function (a new one must be placed in it).
select is(
  array(select p.oid::regprocedure::text from pg_catalog.pg_proc p
         where p.pronamespace = 'q'::regnamespace
           and p.proname not in (select fn from matrix)
         order by 1),
  '{}'::text[],
  'every function in q has a row in the privilege matrix');

-- 72 functions x 4 grantees, through has_function_privilege (membership counts).
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
                             ('public'::name, false)) r(role, allowed)
 where p.pronamespace = 'q'::regnamespace
 order by p.proname, r.role;

-- Direct grants are exactly one role per public function (admin reaches the
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
            case when m.producer and not m.worker then array['pgq_producer']
                 when m.worker and not m.producer then array['pgq_worker']
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
