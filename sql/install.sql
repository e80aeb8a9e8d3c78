-- pgq, current state, for development, pgTAP and the parity test.
-- Users install with `alembic upgrade head`, which runs frozen copies of
-- these files (alembic/sql/<revision>/). Order matters: the Alembic helper
-- reads this file's \ir lines too.
\set ON_ERROR_STOP on
\ir schema/010_schema.sql
\ir schema/015_roles.sql
\ir schema/020_types.sql
\ir schema/030_tables.sql
\ir schema/050_observe.sql
\ir internal/lock_space.sql
\ir internal/check_queue_name.sql
\ir internal/check_job_options.sql
\ir internal/check_claim.sql
\ir internal/check_claims.sql
\ir internal/current_claims.sql
\ir internal/ensure_queue.sql
\ir internal/notify_queues.sql
\ir internal/error_entry.sql
\ir internal/lost_reason.sql
\ir internal/finish.sql
\ir internal/backoff.sql
\ir internal/promote_due.sql
\ir internal/claim_under_snapshot.sql
\ir internal/tally.sql
\ir internal/roll_up_tally.sql
\ir internal/estimate_rows.sql
\ir internal/claim_holder.sql
\ir triggers/notify_enqueued.sql
\ir functions/session_key.sql
\ir functions/enqueue.sql
\ir functions/enqueue_many.sql
\ir functions/claim.sql
\ir functions/complete.sql
\ir functions/complete_many.sql
\ir functions/fail.sql
\ir functions/fail_many.sql
\ir functions/heartbeat.sql
\ir functions/heartbeat_many.sql
\ir functions/release.sql
\ir functions/release_many.sql
\ir functions/reap.sql
\ir functions/cancel.sql
\ir functions/retry.sql
\ir functions/pause.sql
\ir functions/resume.sql
\ir functions/configure.sql
\ir functions/stats.sql
\ir functions/jobs.sql
\ir functions/throughput.sql
\ir functions/throughput_totals.sql
\ir functions/explain.sql
\ir functions/health.sql
