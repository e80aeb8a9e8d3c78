-- Pins pgq's public surface: which functions and tables exist in schema q,
-- their exact signatures, return types, volatility, SECURITY DEFINER and the
-- pinned search_path. A change here is an API change: update this file on
-- purpose, never to make it pass.
begin;
select plan(225);

-- Every function in q, internal ones included.
select functions_are('q', array[
  -- public API
  'session_key', 'enqueue', 'enqueue_many', 'claim', 'claim_explained', 'complete', 'complete_many',
  'fail', 'fail_many', 'heartbeat', 'heartbeat_many', 'release', 'release_many',
  'reap', 'adopt', 'cancel', 'retry', 'pause', 'resume', 'configure', 'stats', 'jobs', 'flow_block_reason', 'limits', 'busy_keys',
  'schedule', 'unschedule', 'pause_schedule', 'resume_schedule', 'schedules',
  'throughput', 'throughput_totals', 'explain', 'health', 'job_page',
  'retry_dead', 'cancel_jobs', 'purge', 'delete_queue', 'allow_test_clock', 'stop_waiting',
  'enqueue_after', 'enqueue_flow', 'unblock', 'parents', 'parent_results', 'job_graph', 'create_batch', 'seal_batch', 'batch',
  'result', 'results', 'await_results',
  -- internal (owner only)
  'lock_space', 'check_queue_name', 'check_queue_settings', 'check_job_options', 'check_claim', 'check_claims',
  'current_claims', 'ensure_queue', 'notify_queues', 'notify_always', 'note_wait', 'error_entry', 'lost_reason', 'finish', 'backoff',
  'promote_due', 'claim_under_snapshot', 'tg_job__notify_enqueued',
  'notify_allowed', 'gone_owners', 'forget_ended_sessions', 'forget_idle_queues', 'append_error', 'payload_size',
  'pending_tally', 'promote_all_due', 'purge_deps', 'purge_history', 'purge_receipts',
  'check_concurrency_key', 'flow_add_key_slot', 'flow_add_key_rate_slot', 'flow_take_key_slot', 'flow_pass_key_slot',
  'flow_sweep', 'flow_claim_jobs', 'flow_claim_keyed', 'flow_claim', 'flow_configure', 'tg_job__flow', 'job_ended',
  'flow_want', 'flow_wake', 'flow_reasons', 'flow_free_queue_slot', 'flow_admit',
  'schedule_now', 'cron_value', 'cron_field', 'cron_parse', 'cron_next', 'cron_longest_gap', 'cron_prev', 'next_slot', 'prev_slot',
  'fire_slot', 'fire_schedules',
  'tally', 'roll_up_tally', 'estimate_rows', 'claim_holder', 'queue_named', 'check_max_rows', 'lock_wait_failed',
  'deps_bad_policy', 'deps_policy', 'deps_check_parents', 'deps_mark_parents', 'batch_join', 'batch_try_fire',
  'batch_member_ended', 'deps_resolve', 'deps_rejoin', 'deps_explain',
  'restart_grace', 'server_began',
  'wake_result_waiters', 'keep_result', 'purge_results'
], 'schema q has exactly the documented functions');

-- No overloads: one signature per name (CREATE OR REPLACE with new argument
-- types would silently add a second one).
select results_eq(
  $$ select p.oid::regprocedure::text from pg_catalog.pg_proc p
      where p.pronamespace = 'q'::regnamespace order by 1 $$,
  $$ values
    ('q.adopt(bigint[],uuid[],integer)'),
    ('q.allow_test_clock(boolean)'),
    ('q.append_error(jsonb,jsonb)'),
    ('q.await_results(bigint[],interval)'),
    ('q.backoff(integer,interval,interval)'),
    ('q.batch(bigint)'),
    ('q.batch_join(bigint)'),
    ('q.batch_member_ended(bigint,bigint,"char")'),
    ('q.batch_try_fire(q_data.batch)'),
    ('q.busy_keys(text,integer)'),
    ('q.cancel(bigint)'),
    ('q.cancel_jobs(text,text,jsonb,integer)'),
    ('q.check_claim(bigint,uuid)'),
    ('q.check_claims(bigint[],uuid[],text[])'),
    ('q.check_concurrency_key(text)'),
    ('q.check_job_options(jsonb,integer,integer)'),
    ('q.check_max_rows(integer,integer)'),
    ('q.check_queue_name(text)'),
    ('q.check_queue_settings(text,interval,smallint,smallint,interval,interval,interval,integer,integer,boolean,integer,interval,integer,interval,interval)'),
    ('q.claim(text,integer,interval,integer)'),
    ('q.claim_explained(text,integer,interval,integer)'),
    ('q.claim_holder(integer)'),
    ('q.claim_under_snapshot(integer,text,integer,timestamp with time zone,integer)'),
    ('q.complete(bigint,uuid,jsonb)'),
    ('q.complete_many(bigint[],uuid[],jsonb[])'),
    ('q.configure(text,interval,integer,integer,interval,interval,boolean,interval,integer,integer,boolean,integer,interval,text[],integer,interval,interval,interval,integer)'),
    ('q.create_batch(text,jsonb,text)'),
    ('q.cron_field(text,text,text,integer,integer,text[])'),
    ('q.cron_longest_gap(q.cron_spec)'),
    ('q.cron_next(q.cron_spec,text,timestamp with time zone)'),
    ('q.cron_parse(text)'),
    ('q.cron_prev(q.cron_spec,text,timestamp with time zone)'),
    ('q.cron_value(text,text,text,text,integer,integer,text[])'),
    ('q.current_claims(bigint[],uuid[])'),
    ('q.delete_queue(text)'),
    ('q.deps_bad_policy(text)'),
    ('q.deps_check_parents(bigint[])'),
    ('q.deps_explain(q_data.job)'),
    ('q.deps_mark_parents(bigint[])'),
    ('q.deps_policy(text)'),
    ('q.deps_rejoin(bigint)'),
    ('q.deps_resolve(bigint[],"char")'),
    ('q.enqueue(text,jsonb,timestamp with time zone,integer,integer,text,text)'),
    ('q.enqueue_after(text,jsonb,bigint[],text,timestamp with time zone,integer,integer,text,bigint)'),
    ('q.enqueue_flow(jsonb)'),
    ('q.enqueue_many(text,jsonb,timestamp with time zone,integer,integer,text[],text,text,text[])'),
    ('q.ensure_queue(text)'),
    ('q.error_entry(integer,text,boolean,timestamp with time zone)'),
    ('q.estimate_rows(text)'),
    ('q.explain(bigint)'),
    ('q.fail(bigint,uuid,text,interval,boolean)'),
    ('q.fail_many(bigint[],uuid[],text[],interval)'),
    ('q.finish(q_data.job,text,timestamp with time zone)'),
    ('q.fire_schedules(integer)'),
    ('q.fire_slot(q_data.schedule,timestamp with time zone)'),
    ('q.flow_add_key_rate_slot(integer,text,smallint)'),
    ('q.flow_add_key_slot(integer,text,smallint,bigint)'),
    ('q.flow_admit(tid[])'),
    ('q.flow_block_reason(bigint)'),
    ('q.flow_claim(q_data.queue,integer,interval,integer)'),
    ('q.flow_claim_jobs(integer,text,integer,timestamp with time zone,integer,smallint[])'),
    ('q.flow_claim_keyed(q_data.queue,integer,timestamp with time zone,timestamp with time zone,integer,smallint[])'),
    ('q.flow_configure(integer,integer,integer,boolean,integer,interval,text[],integer,interval)'),
    ('q.flow_free_queue_slot(integer,smallint)'),
    ('q.flow_pass_key_slot(integer,text,smallint)'),
    ('q.flow_reasons(q_data.job,q_data.queue)'),
    ('q.flow_sweep(integer,integer)'),
    ('q.flow_take_key_slot(integer,text,integer,bigint)'),
    ('q.flow_wake(integer)'),
    ('q.flow_want(integer)'),
    ('q.forget_ended_sessions(integer)'),
    ('q.forget_idle_queues(integer,timestamp with time zone)'),
    ('q.gone_owners(integer)'),
    ('q.health()'),
    ('q.heartbeat(bigint,uuid,interval,jsonb)'),
    ('q.heartbeat_many(bigint[],uuid[],interval,jsonb[])'),
    ('q.job_ended(q_data.job,"char")'),
    ('q.job_graph(bigint,integer)'),
    ('q.job_page(text,text,jsonb,text,integer,integer)'),
    ('q.jobs(text,text,bigint,integer)'),
    ('q.keep_result(q_data.job,jsonb,timestamp with time zone)'),
    ('q.limits(text)'),
    ('q.lock_space()'),
    ('q.lock_wait_failed(text,text)'),
    ('q.lost_reason(boolean)'),
    ('q.next_slot(q.cron_spec,interval,text,timestamp with time zone)'),
    ('q.note_wait(text,integer,boolean)'),
    ('q.notify_allowed()'),
    ('q.notify_always(integer[])'),
    ('q.notify_queues(integer[])'),
    ('q.parent_results(bigint)'),
    ('q.parents(bigint)'),
    ('q.pause(text)'),
    ('q.pause_schedule(text)'),
    ('q.payload_size(jsonb)'),
    ('q.pending_tally()'),
    ('q.prev_slot(q.cron_spec,interval,text,timestamp with time zone)'),
    ('q.promote_all_due(integer)'),
    ('q.promote_due(integer,integer)'),
    ('q.purge(text,integer)'),
    ('q.purge_deps(integer,timestamp with time zone)'),
    ('q.purge_history(integer,timestamp with time zone)'),
    ('q.purge_receipts(integer,timestamp with time zone)'),
    ('q.purge_results(integer,timestamp with time zone)'),
    ('q.queue_named(text)'),
    ('q.reap(integer)'),
    ('q.release(bigint,uuid)'),
    ('q.release_many(bigint[],uuid[])'),
    ('q.restart_grace()'),
    ('q.result(bigint)'),
    ('q.results(bigint[])'),
    ('q.resume(text)'),
    ('q.resume_schedule(text)'),
    ('q.retry(bigint)'),
    ('q.retry_dead(text,text,integer)'),
    ('q.roll_up_tally(integer)'),
    ('q.schedule(text,text,text,jsonb,text,integer,integer,text,interval)'),
    ('q.schedule_now()'),
    ('q.schedules(text)'),
    ('q.seal_batch(bigint)'),
    ('q.server_began()'),
    ('q.session_key()'),
    ('q.stats(integer,integer,text,boolean)'),
    ('q.stop_waiting(integer)'),
    ('q.tally(integer[],"char")'),
    ('q.tg_job__flow()'),
    ('q.tg_job__notify_enqueued()'),
    ('q.throughput(interval)'),
    ('q.throughput_totals()'),
    ('q.unblock(bigint)'),
    ('q.unschedule(text)'),
    ('q.wake_result_waiters(bigint[])') $$,
  'every function in q has exactly one, pinned signature');

-- Argument names and defaults are the named-argument API (q.claim(queue => ..., n => ...)).
select results_eq(
  $$ select p.proname::text collate "default", pg_catalog.pg_get_function_arguments(p.oid), pg_catalog.pg_get_function_result(p.oid)
       from pg_catalog.pg_proc p
      where p.pronamespace = 'q'::regnamespace and p.prosecdef
      order by 1 $$,
  $$ values
    ('adopt', 'ids bigint[], tokens uuid[], owner integer', 'SETOF bigint'),
    ('allow_test_clock', 'allowed boolean DEFAULT true', 'boolean'),
    ('await_results', 'ids bigint[], timeout interval DEFAULT ''00:05:00''::interval', 'TABLE(id bigint, queue text, state text, result jsonb, last_error text, attempts integer, finished_at timestamp with time zone, progress jsonb)'),
    ('batch', 'id bigint', 'TABLE(batch_id bigint, callback_queue text, on_dead text, created_at timestamp with time zone, sealed_at timestamp with time zone, fired_at timestamp with time zone, callback_id bigint, members_left bigint, completed bigint, dead bigint, cancelled bigint)'),
    ('busy_keys', 'queue text DEFAULT NULL::text, max_rows integer DEFAULT 10', 'TABLE(queue text, key text, admitted integer, running integer, held bigint)'),
    ('cancel', 'id bigint', 'boolean'),
    ('cancel_jobs', 'queue text, state text DEFAULT NULL::text, payload_contains jsonb DEFAULT NULL::jsonb, max_rows integer DEFAULT 1000', 'TABLE(cancelled integer, more boolean)'),
    ('claim', 'queue text, n integer DEFAULT 1, lease interval DEFAULT NULL::interval, owner integer DEFAULT NULL::integer', 'SETOF q.claimed_job'),
    ('claim_explained', 'queue text, n integer DEFAULT 1, lease interval DEFAULT NULL::interval, owner integer DEFAULT NULL::integer', 'SETOF q.explained_claim'),
    ('complete', 'id bigint, token uuid, result jsonb DEFAULT NULL::jsonb', 'boolean'),
    ('complete_many', 'ids bigint[], tokens uuid[], results jsonb[] DEFAULT NULL::jsonb[]', 'SETOF bigint'),
    ('configure', 'queue text, lease interval DEFAULT NULL::interval, max_attempts integer DEFAULT NULL::integer, max_crashes integer DEFAULT NULL::integer, backoff_base interval DEFAULT NULL::interval, backoff_max interval DEFAULT NULL::interval, keep_completed boolean DEFAULT NULL::boolean, retention interval DEFAULT NULL::interval, concurrency integer DEFAULT NULL::integer, key_concurrency integer DEFAULT NULL::integer, ordered boolean DEFAULT NULL::boolean, rate integer DEFAULT NULL::integer, per interval DEFAULT NULL::interval, unlimit text[] DEFAULT NULL::text[], key_rate integer DEFAULT NULL::integer, key_per interval DEFAULT NULL::interval, max_lease interval DEFAULT NULL::interval, keep_results interval DEFAULT NULL::interval, max_result_size integer DEFAULT NULL::integer', 'q_data.queue'),
    ('create_batch', 'callback_queue text, callback_payload jsonb DEFAULT ''{}''::jsonb, on_dead text DEFAULT ''wait''::text', 'bigint'),
    ('delete_queue', 'queue text', 'TABLE(history_deleted integer)'),
    ('enqueue', 'queue text, payload jsonb, run_at timestamp with time zone DEFAULT NULL::timestamp with time zone, priority integer DEFAULT 0, max_attempts integer DEFAULT NULL::integer, dedup_key text DEFAULT NULL::text, concurrency_key text DEFAULT NULL::text', 'bigint'),
    ('enqueue_after', 'queue text, payload jsonb, after bigint[], on_parent_failure text DEFAULT ''cancel''::text, run_at timestamp with time zone DEFAULT NULL::timestamp with time zone, priority integer DEFAULT 0, max_attempts integer DEFAULT NULL::integer, concurrency_key text DEFAULT NULL::text, batch bigint DEFAULT NULL::bigint', 'bigint'),
    ('enqueue_flow', 'jobs jsonb', 'TABLE(ref text, id bigint)'),
    ('enqueue_many', 'queue text, payloads jsonb, run_at timestamp with time zone DEFAULT NULL::timestamp with time zone, priority integer DEFAULT 0, max_attempts integer DEFAULT NULL::integer, dedup_keys text[] DEFAULT NULL::text[], idempotency_key text DEFAULT NULL::text, concurrency_key text DEFAULT NULL::text, concurrency_keys text[] DEFAULT NULL::text[]', 'SETOF bigint'),
    ('explain', 'id bigint', 'TABLE(code text, message text, detail jsonb)'),
    ('fail', 'id bigint, token uuid, error text, retry_in interval DEFAULT NULL::interval, retryable boolean DEFAULT true', 'text'),
    ('fail_many', 'ids bigint[], tokens uuid[], errors text[], retry_in interval DEFAULT NULL::interval', 'TABLE(id bigint, status text)'),
    ('flow_block_reason', 'job_id bigint', 'TABLE(code text, reason text)'),
    ('health', '', 'TABLE(check_name text, object text, severity text, message text, advice text, detail jsonb)'),
    ('heartbeat', 'id bigint, token uuid, lease interval DEFAULT NULL::interval, progress jsonb DEFAULT NULL::jsonb', 'text'),
    ('heartbeat_many', 'ids bigint[], tokens uuid[], lease interval DEFAULT NULL::interval, progress jsonb[] DEFAULT NULL::jsonb[]', 'TABLE(id bigint, status text)'),
    ('job_graph', 'id bigint, max_rows integer DEFAULT 100', 'TABLE(job_id bigint, relation text, state text, queue text, edge_outcome text, on_parent_failure text)'),
    ('job_page', 'queue text DEFAULT NULL::text, state text DEFAULT ''waiting''::text, after jsonb DEFAULT NULL::jsonb, search text DEFAULT NULL::text, page_size integer DEFAULT 50, max_scan integer DEFAULT 10000', 'SETOF q.job_page_row'),
    ('jobs', 'queue text DEFAULT NULL::text, state text DEFAULT NULL::text, id bigint DEFAULT NULL::bigint, max_rows integer DEFAULT 50', 'SETOF q.job_info'),
    ('limits', 'queue text DEFAULT NULL::text', 'TABLE(queue text, concurrency integer, running integer, key_concurrency integer, ordered boolean, busy_keys integer, held bigint, rate integer, per interval, started_in_window integer, next_start_at timestamp with time zone, key_rate integer, key_per interval)'),
    ('parent_results', 'id bigint', 'TABLE(id bigint, queue text, state text, result jsonb, last_error text, attempts integer, finished_at timestamp with time zone, progress jsonb)'),
    ('parents', 'id bigint', 'bigint[]'),
    ('pause', 'queue text', 'void'),
    ('pause_schedule', 'name text', 'boolean'),
    ('purge', 'queue text, max_rows integer DEFAULT 10000', 'TABLE(purged integer, more boolean)'),
    ('reap', 'max_jobs integer DEFAULT 1000', 'integer'),
    ('release', 'id bigint, token uuid', 'boolean'),
    ('release_many', 'ids bigint[], tokens uuid[]', 'SETOF bigint'),
    ('result', 'job_id bigint', 'TABLE(id bigint, queue text, state text, result jsonb, last_error text, attempts integer, finished_at timestamp with time zone, progress jsonb)'),
    ('results', 'ids bigint[]', 'TABLE(id bigint, queue text, state text, result jsonb, last_error text, attempts integer, finished_at timestamp with time zone, progress jsonb)'),
    ('resume', 'queue text', 'void'),
    ('resume_schedule', 'name text', 'boolean'),
    ('retry', 'id bigint', 'bigint'),
    ('retry_dead', 'queue text, error_contains text DEFAULT NULL::text, max_rows integer DEFAULT 1000', 'TABLE(retried integer, skipped integer, more boolean)'),
    ('schedule', 'name text, cron text DEFAULT NULL::text, queue text DEFAULT NULL::text, payload jsonb DEFAULT ''{}''::jsonb, timezone text DEFAULT ''UTC''::text, priority integer DEFAULT 0, max_attempts integer DEFAULT NULL::integer, catch_up text DEFAULT ''latest''::text, every interval DEFAULT NULL::interval', 'q.schedule_info'),
    ('schedules', 'name text DEFAULT NULL::text', 'SETOF q.schedule_info'),
    ('seal_batch', 'id bigint', 'boolean'),
    ('session_key', '', 'integer'),
    ('stats', 'exact_up_to integer DEFAULT 1000, max_queues integer DEFAULT 1000, after text DEFAULT NULL::text, include_idle boolean DEFAULT false', 'SETOF q.queue_stats'),
    ('stop_waiting', 'owner integer', 'integer'),
    ('throughput', 'since interval DEFAULT ''01:00:00''::interval', 'TABLE(queue text, minute timestamp with time zone, completed bigint, failed bigint, dead bigint)'),
    ('throughput_totals', '', 'TABLE(queue text, completed bigint, failed bigint, dead bigint, since timestamp with time zone)'),
    ('unblock', 'id bigint', 'boolean'),
    ('unschedule', 'name text', 'boolean') $$,
  'the public functions have the documented argument names, defaults and results');

-- has_function with argument types, for each public function.
select has_function('q', 'session_key', '{}'::name[], 'q.session_key() exists');
select has_function('q', 'stop_waiting', array['integer'], 'q.stop_waiting(int) exists');
select has_function('q', 'enqueue', array['text', 'jsonb', 'timestamp with time zone', 'integer', 'integer', 'text', 'text'], 'q.enqueue(text, jsonb, timestamptz, int, int, text, text) exists');
select has_function('q', 'enqueue_many', array['text', 'jsonb', 'timestamp with time zone', 'integer', 'integer', 'text[]', 'text', 'text', 'text[]'], 'q.enqueue_many(text, jsonb, timestamptz, int, int, text[], text, text, text[]) exists');
select has_function('q', 'claim', array['text', 'integer', 'interval', 'integer'], 'q.claim(text, int, interval, int) exists');
select has_function('q', 'claim_explained', array['text', 'integer', 'interval', 'integer'], 'q.claim_explained(text, int, interval, int) exists');
select has_function('q', 'complete', array['bigint', 'uuid', 'jsonb'], 'q.complete(bigint, uuid, jsonb) exists');
select has_function('q', 'complete_many', array['bigint[]', 'uuid[]', 'jsonb[]'], 'q.complete_many(bigint[], uuid[], jsonb[]) exists');
select has_function('q', 'fail', array['bigint', 'uuid', 'text', 'interval', 'boolean'], 'q.fail(bigint, uuid, text, interval, boolean) exists');
select has_function('q', 'fail_many', array['bigint[]', 'uuid[]', 'text[]', 'interval'], 'q.fail_many(bigint[], uuid[], text[], interval) exists');
select has_function('q', 'heartbeat', array['bigint', 'uuid', 'interval', 'jsonb'], 'q.heartbeat(bigint, uuid, interval, jsonb) exists');
select has_function('q', 'heartbeat_many', array['bigint[]', 'uuid[]', 'interval', 'jsonb[]'], 'q.heartbeat_many(bigint[], uuid[], interval, jsonb[]) exists');
select has_function('q', 'release', array['bigint', 'uuid'], 'q.release(bigint, uuid) exists');
select has_function('q', 'release_many', array['bigint[]', 'uuid[]'], 'q.release_many(bigint[], uuid[]) exists');
select has_function('q', 'reap', array['integer'], 'q.reap(int) exists');
select has_function('q', 'adopt', array['bigint[]', 'uuid[]', 'integer'], 'q.adopt(bigint[], uuid[], int) exists');
select has_function('q', 'cancel', array['bigint'], 'q.cancel(bigint) exists');
select has_function('q', 'retry', array['bigint'], 'q.retry(bigint) exists');
select has_function('q', 'pause', array['text'], 'q.pause(text) exists');
select has_function('q', 'resume', array['text'], 'q.resume(text) exists');
select has_function('q', 'configure', array['text', 'interval', 'integer', 'integer', 'interval', 'interval', 'boolean', 'interval', 'integer', 'integer', 'boolean', 'integer', 'interval', 'text[]', 'integer', 'interval', 'interval', 'interval', 'integer'], 'q.configure(text, interval, int, int, interval, interval, boolean, interval, int, int, boolean, int, interval, text[], int, interval) exists');
select has_function('q', 'stats', array['integer', 'integer', 'text', 'boolean'], 'q.stats(int, int, text, boolean) exists');
select has_function('q', 'throughput', array['interval'], 'q.throughput(interval) exists');
select has_function('q', 'throughput_totals', '{}'::name[], 'q.throughput_totals() exists');
select has_function('q', 'explain', array['bigint'], 'q.explain(bigint) exists');
select has_function('q', 'health', '{}'::name[], 'q.health() exists');
select has_function('q', 'job_page', array['text', 'text', 'jsonb', 'text', 'integer', 'integer'], 'q.job_page(text, text, jsonb, text, int, int) exists');
select has_function('q', 'retry_dead', array['text', 'text', 'integer'], 'q.retry_dead(text, text, int) exists');
select has_function('q', 'cancel_jobs', array['text', 'text', 'jsonb', 'integer'], 'q.cancel_jobs(text, text, jsonb, int) exists');
select has_function('q', 'purge', array['text', 'integer'], 'q.purge(text, int) exists');
select has_function('q', 'delete_queue', array['text'], 'q.delete_queue(text) exists');
select has_function('q', 'allow_test_clock', array['boolean'], 'q.allow_test_clock(boolean) exists');
select has_function('q', 'jobs', array['text', 'text', 'bigint', 'integer'], 'q.jobs(text, text, bigint, int) exists');
select has_function('q', 'flow_block_reason', array['bigint'], 'q.flow_block_reason(bigint) exists');
select has_function('q', 'limits', array['text'], 'q.limits(text) exists');
select has_function('q', 'busy_keys', array['text', 'integer'], 'q.busy_keys(text, int) exists');
select has_function('q', 'schedule', array['text', 'text', 'text', 'jsonb', 'text', 'integer', 'integer', 'text', 'interval'], 'q.schedule(text, text, text, jsonb, text, int, int, text, interval) exists');
select has_function('q', 'unschedule', array['text'], 'q.unschedule(text) exists');
select has_function('q', 'pause_schedule', array['text'], 'q.pause_schedule(text) exists');
select has_function('q', 'resume_schedule', array['text'], 'q.resume_schedule(text) exists');
select has_function('q', 'schedules', array['text'], 'q.schedules(text) exists');
select has_function('q', 'enqueue_after', array['text', 'jsonb', 'bigint[]', 'text', 'timestamp with time zone', 'integer', 'integer', 'text', 'bigint'], 'q.enqueue_after(text, jsonb, bigint[], text, timestamp with time zone, integer, integer, text, bigint) exists');
select has_function('q', 'enqueue_flow', array['jsonb'], 'q.enqueue_flow(jsonb) exists');
select has_function('q', 'unblock', array['bigint'], 'q.unblock(bigint) exists');
select has_function('q', 'parents', array['bigint'], 'q.parents(bigint) exists');
select has_function('q', 'job_graph', array['bigint', 'integer'], 'q.job_graph(bigint, integer) exists');
select has_function('q', 'create_batch', array['text', 'jsonb', 'text'], 'q.create_batch(text, jsonb, text) exists');
select has_function('q', 'seal_batch', array['bigint'], 'q.seal_batch(bigint) exists');
select has_function('q', 'batch', array['bigint'], 'q.batch(bigint) exists');

-- Return types.
select function_returns('q', 'session_key', '{}'::name[], 'integer', 'q.session_key returns integer');
select function_returns('q', 'stop_waiting', array['integer'], 'integer', 'q.stop_waiting returns integer');
select function_returns('q', 'enqueue', array['text', 'jsonb', 'timestamp with time zone', 'integer', 'integer', 'text', 'text'], 'bigint', 'q.enqueue returns bigint');
select function_returns('q', 'enqueue_many', array['text', 'jsonb', 'timestamp with time zone', 'integer', 'integer', 'text[]', 'text', 'text', 'text[]'], 'setof bigint', 'q.enqueue_many returns setof bigint');
select function_returns('q', 'claim', array['text', 'integer', 'interval', 'integer'], 'setof q.claimed_job', 'q.claim returns setof q.claimed_job');
select function_returns('q', 'claim_explained', array['text', 'integer', 'interval', 'integer'], 'setof q.explained_claim', 'q.claim_explained returns setof q.explained_claim');
select function_returns('q', 'complete', array['bigint', 'uuid', 'jsonb'], 'boolean', 'q.complete returns boolean');
select function_returns('q', 'complete_many', array['bigint[]', 'uuid[]', 'jsonb[]'], 'setof bigint', 'q.complete_many returns setof bigint');
select function_returns('q', 'fail', array['bigint', 'uuid', 'text', 'interval', 'boolean'], 'text', 'q.fail returns text');
select function_returns('q', 'fail_many', array['bigint[]', 'uuid[]', 'text[]', 'interval'], 'setof record', 'q.fail_many returns a table');
select function_returns('q', 'heartbeat', array['bigint', 'uuid', 'interval', 'jsonb'], 'text', 'q.heartbeat returns text');
select function_returns('q', 'heartbeat_many', array['bigint[]', 'uuid[]', 'interval', 'jsonb[]'], 'setof record', 'q.heartbeat_many returns a table');
select function_returns('q', 'release', array['bigint', 'uuid'], 'boolean', 'q.release returns boolean');
select function_returns('q', 'release_many', array['bigint[]', 'uuid[]'], 'setof bigint', 'q.release_many returns setof bigint');
select function_returns('q', 'reap', array['integer'], 'integer', 'q.reap returns integer');
select function_returns('q', 'adopt', array['bigint[]', 'uuid[]', 'integer'], 'setof bigint', 'q.adopt returns setof bigint');
select function_returns('q', 'cancel', array['bigint'], 'boolean', 'q.cancel returns boolean');
select function_returns('q', 'retry', array['bigint'], 'bigint', 'q.retry returns bigint');
select function_returns('q', 'pause', array['text'], 'void', 'q.pause returns void');
select function_returns('q', 'resume', array['text'], 'void', 'q.resume returns void');
select function_returns('q', 'configure', array['text', 'interval', 'integer', 'integer', 'interval', 'interval', 'boolean', 'interval', 'integer', 'integer', 'boolean', 'integer', 'interval', 'text[]', 'integer', 'interval', 'interval', 'interval', 'integer'], 'q_data.queue', 'q.configure returns q_data.queue');
select function_returns('q', 'stats', array['integer', 'integer', 'text', 'boolean'], 'setof q.queue_stats', 'q.stats returns setof q.queue_stats');
select function_returns('q', 'throughput', array['interval'], 'setof record', 'q.throughput returns a table');
select function_returns('q', 'throughput_totals', '{}'::name[], 'setof record', 'q.throughput_totals returns a table');
select function_returns('q', 'explain', array['bigint'], 'setof record', 'q.explain returns a table');
select function_returns('q', 'health', '{}'::name[], 'setof record', 'q.health returns a table');
select function_returns('q', 'jobs', array['text', 'text', 'bigint', 'integer'], 'setof q.job_info', 'q.jobs returns setof q.job_info');
select function_returns('q', 'flow_block_reason', array['bigint'], 'setof record', 'q.flow_block_reason returns a table');
select function_returns('q', 'limits', array['text'], 'setof record', 'q.limits returns a table');
select function_returns('q', 'busy_keys', array['text', 'integer'], 'setof record', 'q.busy_keys returns a table');
select function_returns('q', 'schedule', array['text', 'text', 'text', 'jsonb', 'text', 'integer', 'integer', 'text', 'interval'], 'q.schedule_info', 'q.schedule returns q.schedule_info');
select function_returns('q', 'unschedule', array['text'], 'boolean', 'q.unschedule returns boolean');
select function_returns('q', 'pause_schedule', array['text'], 'boolean', 'q.pause_schedule returns boolean');
select function_returns('q', 'resume_schedule', array['text'], 'boolean', 'q.resume_schedule returns boolean');
select function_returns('q', 'schedules', array['text'], 'setof q.schedule_info', 'q.schedules returns setof q.schedule_info');
select function_returns('q', 'enqueue_after', array['text', 'jsonb', 'bigint[]', 'text', 'timestamp with time zone', 'integer', 'integer', 'text', 'bigint'], 'bigint', 'q.enqueue_after returns bigint');
select function_returns('q', 'enqueue_flow', array['jsonb'], 'setof record', 'q.enqueue_flow returns setof record');
select function_returns('q', 'unblock', array['bigint'], 'boolean', 'q.unblock returns boolean');
select function_returns('q', 'parents', array['bigint'], 'bigint[]', 'q.parents returns bigint[]');
select function_returns('q', 'job_graph', array['bigint', 'integer'], 'setof record', 'q.job_graph returns setof record');
select function_returns('q', 'create_batch', array['text', 'jsonb', 'text'], 'bigint', 'q.create_batch returns bigint');
select function_returns('q', 'seal_batch', array['bigint'], 'boolean', 'q.seal_batch returns boolean');
select function_returns('q', 'batch', array['bigint'], 'setof record', 'q.batch returns setof record');

-- Volatility: everything writes except the reads (jobs, throughput, explain,
-- health, schedules, limits). q.stats writes nothing either, but its
-- estimates run EXPLAIN, which PostgreSQL allows only in a volatile function.
select volatility_is('q', 'session_key', '{}'::name[], 'volatile', 'q.session_key is volatile');
select volatility_is('q', 'stop_waiting', array['integer'], 'volatile', 'q.stop_waiting is volatile');
select volatility_is('q', 'enqueue', array['text', 'jsonb', 'timestamp with time zone', 'integer', 'integer', 'text', 'text'], 'volatile', 'q.enqueue is volatile');
select volatility_is('q', 'enqueue_many', array['text', 'jsonb', 'timestamp with time zone', 'integer', 'integer', 'text[]', 'text', 'text', 'text[]'], 'volatile', 'q.enqueue_many is volatile');
select volatility_is('q', 'claim', array['text', 'integer', 'interval', 'integer'], 'volatile', 'q.claim is volatile');
select volatility_is('q', 'claim_explained', array['text', 'integer', 'interval', 'integer'], 'volatile', 'q.claim_explained is volatile');
select volatility_is('q', 'complete', array['bigint', 'uuid', 'jsonb'], 'volatile', 'q.complete is volatile');
select volatility_is('q', 'complete_many', array['bigint[]', 'uuid[]', 'jsonb[]'], 'volatile', 'q.complete_many is volatile');
select volatility_is('q', 'fail', array['bigint', 'uuid', 'text', 'interval', 'boolean'], 'volatile', 'q.fail is volatile');
select volatility_is('q', 'fail_many', array['bigint[]', 'uuid[]', 'text[]', 'interval'], 'volatile', 'q.fail_many is volatile');
select volatility_is('q', 'heartbeat', array['bigint', 'uuid', 'interval', 'jsonb'], 'volatile', 'q.heartbeat is volatile');
select volatility_is('q', 'heartbeat_many', array['bigint[]', 'uuid[]', 'interval', 'jsonb[]'], 'volatile', 'q.heartbeat_many is volatile');
select volatility_is('q', 'release', array['bigint', 'uuid'], 'volatile', 'q.release is volatile');
select volatility_is('q', 'release_many', array['bigint[]', 'uuid[]'], 'volatile', 'q.release_many is volatile');
select volatility_is('q', 'reap', array['integer'], 'volatile', 'q.reap is volatile');
select volatility_is('q', 'adopt', array['bigint[]', 'uuid[]', 'integer'], 'volatile', 'q.adopt is volatile');
select volatility_is('q', 'cancel', array['bigint'], 'volatile', 'q.cancel is volatile');
select volatility_is('q', 'retry', array['bigint'], 'volatile', 'q.retry is volatile');
select volatility_is('q', 'pause', array['text'], 'volatile', 'q.pause is volatile');
select volatility_is('q', 'resume', array['text'], 'volatile', 'q.resume is volatile');
select volatility_is('q', 'configure', array['text', 'interval', 'integer', 'integer', 'interval', 'interval', 'boolean', 'interval', 'integer', 'integer', 'boolean', 'integer', 'interval', 'text[]', 'integer', 'interval', 'interval', 'interval', 'integer'], 'volatile', 'q.configure is volatile');
select volatility_is('q', 'stats', array['integer', 'integer', 'text', 'boolean'], 'volatile', 'q.stats is volatile (EXPLAIN for its estimates)');
select volatility_is('q', 'throughput', array['interval'], 'stable', 'q.throughput is stable');
select volatility_is('q', 'throughput_totals', '{}'::name[], 'stable', 'q.throughput_totals is stable');
select volatility_is('q', 'explain', array['bigint'], 'stable', 'q.explain is stable');
select volatility_is('q', 'health', '{}'::name[], 'stable', 'q.health is stable');
select volatility_is('q', 'job_page', array['text', 'text', 'jsonb', 'text', 'integer', 'integer'], 'stable', 'q.job_page is stable');
select volatility_is('q', 'retry_dead', array['text', 'text', 'integer'], 'volatile', 'q.retry_dead is volatile');
select volatility_is('q', 'cancel_jobs', array['text', 'text', 'jsonb', 'integer'], 'volatile', 'q.cancel_jobs is volatile');
select volatility_is('q', 'purge', array['text', 'integer'], 'volatile', 'q.purge is volatile');
select volatility_is('q', 'delete_queue', array['text'], 'volatile', 'q.delete_queue is volatile');
select volatility_is('q', 'allow_test_clock', array['boolean'], 'volatile', 'q.allow_test_clock is volatile');
select volatility_is('q', 'jobs', array['text', 'text', 'bigint', 'integer'], 'stable', 'q.jobs is stable');
select volatility_is('q', 'flow_block_reason', array['bigint'], 'stable', 'q.flow_block_reason is stable');
select volatility_is('q', 'limits', array['text'], 'stable', 'q.limits is stable');
select volatility_is('q', 'busy_keys', array['text', 'integer'], 'stable', 'q.busy_keys is stable');
select volatility_is('q', 'schedule', array['text', 'text', 'text', 'jsonb', 'text', 'integer', 'integer', 'text', 'interval'], 'volatile', 'q.schedule is volatile');
select volatility_is('q', 'unschedule', array['text'], 'volatile', 'q.unschedule is volatile');
select volatility_is('q', 'pause_schedule', array['text'], 'volatile', 'q.pause_schedule is volatile');
select volatility_is('q', 'resume_schedule', array['text'], 'volatile', 'q.resume_schedule is volatile');
select volatility_is('q', 'schedules', array['text'], 'stable', 'q.schedules is stable');
select volatility_is('q', 'enqueue_after', array['text', 'jsonb', 'bigint[]', 'text', 'timestamp with time zone', 'integer', 'integer', 'text', 'bigint'], 'volatile', 'q.enqueue_after is volatile');
select volatility_is('q', 'enqueue_flow', array['jsonb'], 'volatile', 'q.enqueue_flow is volatile');
select volatility_is('q', 'unblock', array['bigint'], 'volatile', 'q.unblock is volatile');
select volatility_is('q', 'parents', array['bigint'], 'stable', 'q.parents is stable');
select volatility_is('q', 'job_graph', array['bigint', 'integer'], 'stable', 'q.job_graph is stable');
select volatility_is('q', 'create_batch', array['text', 'jsonb', 'text'], 'volatile', 'q.create_batch is volatile');
select volatility_is('q', 'seal_batch', array['bigint'], 'volatile', 'q.seal_batch is volatile');
select volatility_is('q', 'batch', array['bigint'], 'stable', 'q.batch is stable');

-- The public API runs as the schema owner: callers need no table privileges.
select is_definer('q', 'session_key', '{}'::name[], 'q.session_key is SECURITY DEFINER');
select is_definer('q', 'stop_waiting', array['integer'], 'q.stop_waiting is SECURITY DEFINER');
select is_definer('q', 'enqueue', array['text', 'jsonb', 'timestamp with time zone', 'integer', 'integer', 'text', 'text'], 'q.enqueue is SECURITY DEFINER');
select is_definer('q', 'enqueue_many', array['text', 'jsonb', 'timestamp with time zone', 'integer', 'integer', 'text[]', 'text', 'text', 'text[]'], 'q.enqueue_many is SECURITY DEFINER');
select is_definer('q', 'claim', array['text', 'integer', 'interval', 'integer'], 'q.claim is SECURITY DEFINER');
select is_definer('q', 'claim_explained', array['text', 'integer', 'interval', 'integer'], 'q.claim_explained is SECURITY DEFINER');
select is_definer('q', 'complete', array['bigint', 'uuid', 'jsonb'], 'q.complete is SECURITY DEFINER');
select is_definer('q', 'complete_many', array['bigint[]', 'uuid[]', 'jsonb[]'], 'q.complete_many is SECURITY DEFINER');
select is_definer('q', 'fail', array['bigint', 'uuid', 'text', 'interval', 'boolean'], 'q.fail is SECURITY DEFINER');
select is_definer('q', 'fail_many', array['bigint[]', 'uuid[]', 'text[]', 'interval'], 'q.fail_many is SECURITY DEFINER');
select is_definer('q', 'heartbeat', array['bigint', 'uuid', 'interval', 'jsonb'], 'q.heartbeat is SECURITY DEFINER');
select is_definer('q', 'heartbeat_many', array['bigint[]', 'uuid[]', 'interval', 'jsonb[]'], 'q.heartbeat_many is SECURITY DEFINER');
select is_definer('q', 'release', array['bigint', 'uuid'], 'q.release is SECURITY DEFINER');
select is_definer('q', 'release_many', array['bigint[]', 'uuid[]'], 'q.release_many is SECURITY DEFINER');
select is_definer('q', 'reap', array['integer'], 'q.reap is SECURITY DEFINER');
select is_definer('q', 'adopt', array['bigint[]', 'uuid[]', 'integer'], 'q.adopt is SECURITY DEFINER');
select is_definer('q', 'cancel', array['bigint'], 'q.cancel is SECURITY DEFINER');
select is_definer('q', 'retry', array['bigint'], 'q.retry is SECURITY DEFINER');
select is_definer('q', 'pause', array['text'], 'q.pause is SECURITY DEFINER');
select is_definer('q', 'resume', array['text'], 'q.resume is SECURITY DEFINER');
select is_definer('q', 'configure', array['text', 'interval', 'integer', 'integer', 'interval', 'interval', 'boolean', 'interval', 'integer', 'integer', 'boolean', 'integer', 'interval', 'text[]', 'integer', 'interval', 'interval', 'interval', 'integer'], 'q.configure is SECURITY DEFINER');
select is_definer('q', 'stats', array['integer', 'integer', 'text', 'boolean'], 'q.stats is SECURITY DEFINER');
select is_definer('q', 'throughput', array['interval'], 'q.throughput is SECURITY DEFINER');
select is_definer('q', 'throughput_totals', '{}'::name[], 'q.throughput_totals is SECURITY DEFINER');
select is_definer('q', 'explain', array['bigint'], 'q.explain is SECURITY DEFINER');
select is_definer('q', 'health', '{}'::name[], 'q.health is SECURITY DEFINER');
select is_definer('q', 'job_page', array['text', 'text', 'jsonb', 'text', 'integer', 'integer'], 'q.job_page is SECURITY DEFINER');
select is_definer('q', 'retry_dead', array['text', 'text', 'integer'], 'q.retry_dead is SECURITY DEFINER');
select is_definer('q', 'cancel_jobs', array['text', 'text', 'jsonb', 'integer'], 'q.cancel_jobs is SECURITY DEFINER');
select is_definer('q', 'purge', array['text', 'integer'], 'q.purge is SECURITY DEFINER');
select is_definer('q', 'delete_queue', array['text'], 'q.delete_queue is SECURITY DEFINER');
select is_definer('q', 'allow_test_clock', array['boolean'], 'q.allow_test_clock is SECURITY DEFINER');
select is_definer('q', 'jobs', array['text', 'text', 'bigint', 'integer'], 'q.jobs is SECURITY DEFINER');
select is_definer('q', 'flow_block_reason', array['bigint'], 'q.flow_block_reason is SECURITY DEFINER');
select is_definer('q', 'limits', array['text'], 'q.limits is SECURITY DEFINER');
select is_definer('q', 'busy_keys', array['text', 'integer'], 'q.busy_keys is SECURITY DEFINER');
select is_definer('q', 'schedule', array['text', 'text', 'text', 'jsonb', 'text', 'integer', 'integer', 'text', 'interval'], 'q.schedule is SECURITY DEFINER');
select is_definer('q', 'unschedule', array['text'], 'q.unschedule is SECURITY DEFINER');
select is_definer('q', 'pause_schedule', array['text'], 'q.pause_schedule is SECURITY DEFINER');
select is_definer('q', 'resume_schedule', array['text'], 'q.resume_schedule is SECURITY DEFINER');
select is_definer('q', 'schedules', array['text'], 'q.schedules is SECURITY DEFINER');
select is_definer('q', 'enqueue_after', array['text', 'jsonb', 'bigint[]', 'text', 'timestamp with time zone', 'integer', 'integer', 'text', 'bigint'], 'q.enqueue_after is SECURITY DEFINER');
select is_definer('q', 'enqueue_flow', array['jsonb'], 'q.enqueue_flow is SECURITY DEFINER');
select is_definer('q', 'unblock', array['bigint'], 'q.unblock is SECURITY DEFINER');
select is_definer('q', 'parents', array['bigint'], 'q.parents is SECURITY DEFINER');
select is_definer('q', 'job_graph', array['bigint', 'integer'], 'q.job_graph is SECURITY DEFINER');
select is_definer('q', 'create_batch', array['text', 'jsonb', 'text'], 'q.create_batch is SECURITY DEFINER');
select is_definer('q', 'seal_batch', array['bigint'], 'q.seal_batch is SECURITY DEFINER');
select is_definer('q', 'batch', array['bigint'], 'q.batch is SECURITY DEFINER');

-- Internal functions are reached only through the public ones: no need to
-- run as definer, and they must not be (nobody else may call them anyway).
select is(
  array(select p.proname::text from pg_catalog.pg_proc p
         where p.pronamespace = 'q'::regnamespace and p.prosecdef
           and p.proname in ('lock_space', 'check_queue_name', 'check_queue_settings', 'check_job_options', 'check_claim',
                             'check_claims', 'current_claims', 'ensure_queue', 'notify_queues', 'notify_always', 'note_wait', 'error_entry',
                             'lost_reason', 'finish', 'backoff', 'promote_due',
                             'claim_under_snapshot', 'tg_job__notify_enqueued',
                             'notify_allowed', 'gone_owners', 'forget_ended_sessions', 'forget_idle_queues',
                             'append_error', 'payload_size', 'promote_all_due', 'purge_deps', 'purge_history', 'purge_receipts',
                             'check_concurrency_key', 'flow_add_key_slot', 'flow_add_key_rate_slot',
                             'flow_take_key_slot', 'flow_pass_key_slot', 'flow_sweep',
                             'flow_claim_jobs', 'flow_claim_keyed', 'flow_claim', 'flow_configure', 'tg_job__flow',
                             'job_ended', 'flow_want', 'flow_wake', 'flow_reasons', 'flow_free_queue_slot', 'flow_admit',
                             'schedule_now', 'cron_value', 'cron_field', 'cron_parse', 'cron_next', 'cron_longest_gap', 'cron_prev',
                             'next_slot', 'prev_slot', 'fire_slot', 'fire_schedules',
                             'tally', 'roll_up_tally', 'estimate_rows', 'claim_holder', 'queue_named',
                             'check_max_rows', 'lock_wait_failed')
         order by 1),
  '{}'::text[],
  'no internal function is SECURITY DEFINER');

-- Every function pins search_path, ending in pg_temp (so a temp object can
-- never shadow a name inside a SECURITY DEFINER body).
select is(
  array(select p.oid::regprocedure::text from pg_catalog.pg_proc p
         where p.pronamespace = 'q'::regnamespace
           and not exists (select from unnest(p.proconfig) c
                            where c ~ '^search_path=.*\mpg_temp$')
         order by 1),
  '{}'::text[],
  'every function in q pins search_path ending in pg_temp');

-- ... and the pinned path names nothing a caller could create objects in.
select is(
  array(select distinct c from pg_catalog.pg_proc p, unnest(p.proconfig) c
         where p.pronamespace = 'q'::regnamespace and c like 'search_path=%'),
  array['search_path=pg_catalog, pg_temp'],
  'the pinned search_path is pg_catalog, pg_temp');

-- Every function says what it promises.
select is(
  array(select p.oid::regprocedure::text from pg_catalog.pg_proc p
         where p.pronamespace = 'q'::regnamespace
           and coalesce(pg_catalog.obj_description(p.oid, 'pg_proc'), '') = ''
         order by 1),
  '{}'::text[],
  'every function in q has a COMMENT');

-- Tables: every table pgq owns is in schema q_data, where no role pgq grants
-- has USAGE (a DDL statement naming one fails before it joins a lock queue);
-- schema q keeps only Alembic's version table, when installed by Alembic.
select tables_are('q_data',
  array['queue', 'job', 'job_history', 'session', 'reaper_turn', 'enqueue_receipt', 'schedule', 'schedule_fire',
        'queue_slot', 'key_slot', 'key_recheck', 'rate_slot', 'key_rate_slot', 'tally', 'throughput', 'throughput_total',
        'test_clock', 'waiter', 'job_result', 'result_waiter', 'job_dep', 'job_dep_ended', 'batch', 'batch_done', 'server_start'],
  'schema q_data has exactly the tables queue, job, job_history, session, reaper_turn, enqueue_receipt, schedule, schedule_fire, queue_slot, key_slot, key_recheck, rate_slot, key_rate_slot, tally, throughput, throughput_total, test_clock, waiter, job_result, result_waiter, job_dep, job_dep_ended, batch, batch_done, server_start');

select tables_are('q',
  case when to_regclass('q.alembic_version') is not null then array['alembic_version'] else '{}' end::name[],
  'schema q has no table of pgq''s (only alembic_version under Alembic)');

select sequences_are('q_data', array['queue_id_seq', 'job_id_seq', 'session_seq', 'schedule_id_seq', 'key_recheck_id_seq', 'batch_id_seq'],
  'schema q_data has exactly the sequences behind the identities and the session keys');

select sequences_are('q', '{}'::name[], 'schema q has no sequence');

select schema_privs_are('q_data', 'pgq_viewer', '{}'::text[], 'pgq_viewer has no USAGE on schema q_data');
select schema_privs_are('q_data', 'pgq_producer', '{}'::text[], 'pgq_producer has no USAGE on schema q_data');
select schema_privs_are('q_data', 'pgq_worker', '{}'::text[], 'pgq_worker has no USAGE on schema q_data');
select schema_privs_are('q_data', 'pgq_admin', '{}'::text[], 'pgq_admin has no USAGE on schema q_data');
select schema_privs_are('q_data', 'public', '{}'::text[], 'PUBLIC has no USAGE on schema q_data');
select schema_owner_is('q_data', 'pgq_owner', 'pgq_owner owns schema q_data');

select types_are('q', array['claimed_job', 'queue_stats', 'job_info', 'cron_spec', 'schedule_info', 'job_page_row', 'explained_claim'],
  'schema q has exactly the composite types claimed_job, queue_stats, job_info, cron_spec, schedule_info, job_page_row and explained_claim');

select results_eq(
  $$ select a.attname::text collate "default", pg_catalog.format_type(a.atttypid, a.atttypmod)
       from pg_catalog.pg_attribute a
      where a.attrelid = 'q.explained_claim'::regclass and a.attnum > 0 and not a.attisdropped
      order by a.attnum $$,
  $$ values ('id', 'bigint'), ('queue', 'text'), ('payload', 'jsonb'), ('attempt', 'integer'),
            ('crashes', 'integer'), ('priority', 'integer'), ('token', 'uuid'),
            ('lease_until', 'timestamp with time zone'), ('blocked', 'text'), ('retry_in', 'interval') $$,
  'q.explained_claim has the columns of q.claimed_job, then blocked and retry_in');

select results_eq(
  $$ select a.attname::text collate "default", pg_catalog.format_type(a.atttypid, a.atttypmod)
       from pg_catalog.pg_attribute a
      where a.attrelid = 'q.claimed_job'::regclass and a.attnum > 0 and not a.attisdropped
      order by a.attnum $$,
  $$ values ('id', 'bigint'), ('queue', 'text'), ('payload', 'jsonb'), ('attempt', 'integer'),
            ('crashes', 'integer'), ('priority', 'integer'), ('token', 'uuid'),
            ('lease_until', 'timestamp with time zone') $$,
  'q.claimed_job has the documented columns, in order');

select results_eq(
  $$ select a.attname::text collate "default", pg_catalog.format_type(a.atttypid, a.atttypmod)
       from pg_catalog.pg_attribute a
      where a.attrelid = 'q.queue_stats'::regclass and a.attnum > 0 and not a.attisdropped
      order by a.attnum $$,
  $$ values ('queue', 'text'), ('paused', 'boolean'), ('waiting', 'bigint'), ('scheduled', 'bigint'),
            ('running', 'bigint'), ('dead', 'bigint'), ('oldest_waiting', 'interval'),
            ('waiting_exact', 'boolean'), ('scheduled_exact', 'boolean'), ('dead_exact', 'boolean'),
            ('held', 'bigint'), ('held_exact', 'boolean'),
            ('pending', 'bigint'), ('pending_exact', 'boolean'), ('on_hold', 'bigint'), ('on_hold_exact', 'boolean') $$,
  'q.queue_stats has the documented columns, in order');

select results_eq(
  $$ select a.attname::text collate "default", pg_catalog.format_type(a.atttypid, a.atttypmod)
       from pg_catalog.pg_attribute a
      where a.attrelid = 'q.job_info'::regclass and a.attnum > 0 and not a.attisdropped
      order by a.attnum $$,
  $$ values ('id', 'bigint'), ('queue', 'text'), ('state', 'text'), ('attempt', 'integer'),
            ('crashes', 'integer'), ('priority', 'integer'), ('run_at', 'timestamp with time zone'),
            ('lease_until', 'timestamp with time zone'), ('finished_at', 'timestamp with time zone'),
            ('dedup_key', 'text'), ('payload', 'jsonb'), ('errors', 'jsonb'), ('concurrency_key', 'text') $$,
  'q.job_info has the documented columns, in order');

select results_eq(
  $$ select a.attname::text collate "default", pg_catalog.format_type(a.atttypid, a.atttypmod)
       from pg_catalog.pg_attribute a
      where a.attrelid = 'q.schedule_info'::regclass and a.attnum > 0 and not a.attisdropped
      order by a.attnum $$,
  $$ values ('name', 'text'), ('queue', 'text'), ('cron', 'text'), ('every', 'interval'), ('timezone', 'text'),
            ('catch_up', 'text'), ('paused', 'boolean'), ('next_fire_at', 'timestamp with time zone'),
            ('last_slot', 'timestamp with time zone'), ('last_fired_at', 'timestamp with time zone'),
            ('last_job_id', 'bigint'), ('payload', 'jsonb'), ('priority', 'integer'), ('max_attempts', 'integer'),
            ('created_at', 'timestamp with time zone'), ('updated_at', 'timestamp with time zone') $$,
  'q.schedule_info has the documented columns, in order');

-- Results (revision 0009, design.md#results-and-dependencies).
select has_function('q', 'result', array['bigint'], 'q.result(bigint) exists');
select has_function('q', 'results', array['bigint[]'], 'q.results(bigint[]) exists');
select has_function('q', 'await_results', array['bigint[]', 'interval'], 'q.await_results(bigint[], interval) exists');
select volatility_is('q', 'result', array['bigint'], 'stable', 'q.result is stable');
select volatility_is('q', 'results', array['bigint[]'], 'stable', 'q.results is stable');
select volatility_is('q', 'await_results', array['bigint[]', 'interval'], 'volatile', 'q.await_results is volatile');
select is_definer('q', 'result', array['bigint'], 'q.result is SECURITY DEFINER');
select is_definer('q', 'results', array['bigint[]'], 'q.results is SECURITY DEFINER');
select is_definer('q', 'await_results', array['bigint[]', 'interval'], 'q.await_results is SECURITY DEFINER');
select has_function('q', 'parent_results', array['bigint'], 'q.parent_results(bigint) exists');
select volatility_is('q', 'parent_results', array['bigint'], 'stable', 'q.parent_results is stable');
select is_definer('q', 'parent_results', array['bigint'], 'q.parent_results is SECURITY DEFINER');

select * from finish();
rollback;
