"""pgq's tables move to a private schema, q_data.

PostgreSQL queues a DDL lock request on a table before it checks that the
caller owns it (CREATE RULE asks for ACCESS EXCLUSIVE, CREATE TRIGGER for
SHARE ROW EXCLUSIVE), and every later access to the table queues behind that
request. With pgq's tables in schema q, every role pgq grants (pgq_viewer
too) could stop every claim and enqueue for as long as any other session held
a read on q.job, and then fail with 42501. In q_data, on which no role but
pgq_owner has USAGE, the name does not resolve (42501) and no lock queue is
joined. Schema q keeps what applications call: the functions and the types
they return. Alembic's version table stays in q (pgq's roles have no rights
on it, and only migrations lock it).

Tables keep their rows, indexes, triggers, identity sequences and storage
parameters (ALTER TABLE ... SET SCHEMA); every function that names a table is
made again from its 0008 copy; the comments that named q.<table> are
rewritten.

Queue names that cost nothing when idle (issue 21 item 5), held jobs in
q.stats (issue 23 item 4), a bounded search and a monitoring role: q.stats
gets a new signature (active queues, paged) and q.queue_stats two columns
(held, held_exact); q.reap deletes idle queues (q.forget_idle_queues, its
cursor in q_data.reaper_turn.idle_queue_after); the role pgq_monitor.

Flow storage (issue 21 item 2): a key's slot rows are made one per admitted job
(up to key_concurrency) and its rate slots one per start inside the window (up to
key_rate), never by waiting on another producer's or claim's open transaction;
free and expired ones are deleted by the reaper's sweep, which reads only
candidates an index lists (q_data.key_slot free rows, q_data.key_recheck,
key_rate_slot_used_idx now on (queue_id, used_at)). Flow control's triggers on
q_data.job exist from here on; q.flow_arm and its lock on q_data.job are gone.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-04T20:22:10+00:00
"""
from __future__ import annotations

import sys
from pathlib import Path

from alembic import op

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from pgq_sql import run_frozen  # noqa: E402

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

# Every table pgq owns, and the one standalone sequence (identity and serial
# sequences move with their tables).
TABLES = (
    "queue", "job", "job_history", "session", "reaper_turn", "enqueue_receipt", "schedule",
    "schedule_fire", "queue_slot", "key_slot", "rate_slot", "tally", "throughput",
    "throughput_total", "key_rate_slot",
)
SEQUENCES = ("session_seq",)

MOVE = (
    "create schema q_data;\n"
    "revoke all on schema q_data from public;\n"
    "comment on schema q_data is\n"
    "  'pgq''s tables and sequences, private to pgq''s owner: no role pgq grants has USAGE here, so none can '\n"
    "  'queue a lock on them. Read them through the functions in schema q.';\n"
    + "".join(f"alter table q.{t} set schema q_data;\n" for t in TABLES)
    + "".join(f"alter sequence q.{s} set schema q_data;\n" for s in SEQUENCES)
)
MOVE_BACK = (
    "".join(f"alter table q_data.{t} set schema q;\n" for t in TABLES)
    + "".join(f"alter sequence q_data.{s} set schema q;\n" for s in SEQUENCES)
    + "drop schema q_data;\n"
)
# The comments (sql/schema/) whose text named q.<table>, as 0008 writes them and as 0007 had them.
COMMENTS = """
comment on schema q is
  'pgq: a job queue inside PostgreSQL. Call the functions (q.enqueue, q.claim, q.complete, ...); the '
  'tables are private (schema q_data).';
comment on column q_data.queue.keep_completed is
  'Whether completed jobs are copied to q_data.job_history (dead and cancelled ones always are).';
comment on column q_data.queue.retention is
  'How long q_data.job_history keeps finished jobs of this queue; q.reap deletes older ones.';
comment on table q_data.job is
  'Jobs that are waiting (w), scheduled for later (s) or running (r). Finished jobs move to '
  'q_data.job_history or are deleted.';
comment on column q_data.job.key_slot is
  'The key slot (q_data.key_slot.n) this job holds from admission until it finishes; NULL while held or'
  ' without a key limit.';
comment on column q_data.job.queue_slot is
  'The queue slot (q_data.queue_slot.n) this job holds while running on a queue with a concurrency limit.';
comment on table q_data.tally is
  'Outcomes not yet rolled up into q_data.throughput: c = completed, f = failed (will retry), d = dead.'
  ' Written in the caller''s transaction, moved by q.reap.';
comment on table q_data.throughput is
  'Per queue and minute: jobs completed, failed attempts that will retry, jobs that went dead. Rolled '
  'up from q_data.tally by q.reap; rows older than a day are deleted.';
comment on table q_data.throughput_total is
  'Per queue: jobs completed, failed attempts that will retry and jobs that went dead since `since` '
  '(the first rolled-up outcome). Rolled up from q_data.tally by q.reap.';
"""
OLD_COMMENTS = """
comment on schema q is
  'pgq: a job queue inside PostgreSQL. Call the functions (q.enqueue, q.claim, q.complete, ...); the '
  'tables are private.';
comment on column q.queue.keep_completed is
  'Whether completed jobs are copied to q.job_history (dead and cancelled ones always are).';
comment on column q.queue.retention is
  'How long q.job_history keeps finished jobs of this queue; q.reap deletes older ones.';
comment on table q.job is
  'Jobs that are waiting (w), scheduled for later (s) or running (r). Finished jobs move to '
  'q.job_history or are deleted.';
comment on column q.job.key_slot is
  'The key slot (q.key_slot.n) this job holds from admission until it finishes; NULL while held or '
  'without a key limit.';
comment on column q.job.queue_slot is
  'The queue slot (q.queue_slot.n) this job holds while running on a queue with a concurrency limit.';
comment on table q.tally is
  'Outcomes not yet rolled up into q.throughput: c = completed, f = failed (will retry), d = dead. '
  'Written in the caller''s transaction, moved by q.reap.';
comment on table q.throughput is
  'Per queue and minute: jobs completed, failed attempts that will retry, jobs that went dead. Rolled '
  'up from q.tally by q.reap; rows older than a day are deleted.';
comment on table q.throughput_total is
  'Per queue: jobs completed, failed attempts that will retry and jobs that went dead since `since` '
  '(the first rolled-up outcome). Rolled up from q.tally by q.reap.';
"""

# sql/schema/079_max_lease.sql (its rules are in q.check_queue_settings); a queue whose lease is
# over the default cap keeps its lease as its cap.
MAX_LEASE = """
alter table q_data.queue add column max_lease interval not null default '1 hour';
update q_data.queue set max_lease = lease where lease > max_lease;
comment on column q_data.queue.max_lease is
  'The longest lease q.claim and q.heartbeat accept for this queue (22023 beyond); at least the queue''s default '
  'lease. Default 1 hour: a longer job heartbeats.';
"""
JOB_INFO_KEY = """
alter type q.job_info add attribute concurrency_key text;
comment on type q.job_info is
  'A job as an admin sees it: state is waiting, scheduled, running, completed, dead or cancelled; lease_until '
  'is set while running, finished_at once finished; concurrency_key is the flow-control key it was enqueued with.';
"""
JOB_INFO_NO_KEY = """
alter type q.job_info drop attribute concurrency_key;
comment on type q.job_info is
  'A job as an admin sees it: state is waiting, scheduled, running, completed, dead or cancelled; lease_until '
  'is set while running, finished_at once finished.';
"""
# wake-ups on demand (issue 22): sql/schema/090_waiter.sql, the sessions waiting for a queue's jobs.
WAITER = """
-- Wake-ups on demand (issue 22). PostgreSQL holds one cluster-wide lock
-- through the whole commit of every transaction that sent a NOTIFY, so when
-- every enqueue notified, concurrent producers committed one at a time. Now
-- an enqueue notifies only while a session waits for its queue: a row here,
-- written by q.claim (sql/functions/claim.sql) when a listening claim comes
-- back empty, deleted by the next listening claim of that session that finds
-- jobs, and by q.reap (through q_data.session) once the session has ended.
-- The enqueue trigger only reads it (sql/triggers/notify_enqueued.sql).
-- Keyed by queue name, not id: a worker may wait for a queue nobody has
-- enqueued into yet.
create table q_data.waiter (
  queue        text        not null,
  session_key  integer     not null references q_data.session (key) on delete cascade,
  since        timestamptz not null default clock_timestamp(),
  primary key (queue, session_key)
) with (
  -- A few rows, inserted and deleted on every idle transition of a worker:
  -- keep the dead ones out of the trigger's reads.
  autovacuum_vacuum_threshold = 50,
  autovacuum_vacuum_scale_factor = 0,
  autovacuum_vacuum_cost_delay = 0
);

comment on table q_data.waiter is
  'Sessions waiting for jobs of a queue: an enqueue into the queue sends NOTIFY pgq only while a row names it. '
  'Written by q.claim with pgq.listening = on and an owner key (a claim that comes back short, or empty with '
  'pgq.wait_when = empty, adds the row; any other claim deletes it); rows of ended sessions go with their '
  'q_data.session row (q.reap).';

revoke all on q_data.waiter from public;
"""

OLD_CONFIGURE = (
    "q.configure(text, interval, integer, integer, interval, interval, boolean, interval,"
    " integer, integer, boolean, integer, interval, text[], integer, interval)"
)
NEW_CONFIGURE = (
    "q.configure(text, interval, integer, integer, interval, interval, boolean, interval,"
    " integer, integer, boolean, integer, interval, text[], integer, interval, interval)"
)


# queue names and monitoring (issue 21 item 5): the monitoring role, the reaper's
# cursor over idle queues, and held jobs in q.stats (a new signature and two
# more columns, so the old function goes first). As sql/schema/070_observe.sql,
# 080_queue_names.sql and 020_types.sql make them.
QUEUE_NAMES = """
do $$
begin
  if not exists (select from pg_catalog.pg_roles where rolname = 'pgq_monitor') then
    begin
      create role pgq_monitor nologin;
    exception when duplicate_object or unique_violation then
      null;
    end;
  end if;
  if not pg_catalog.pg_has_role('pgq_viewer', 'pgq_monitor', 'member') then
    grant pgq_monitor to pgq_viewer;
  end if;
end
$$;
grant usage on schema q to pgq_monitor;
alter table q_data.reaper_turn
  add column idle_queue_after integer not null default 0;
comment on column q_data.reaper_turn.idle_queue_after is
  'q.forget_idle_queues goes on from the queue after this id (0: from the start).';
drop function q.stats(integer);
alter type q.queue_stats add attribute held bigint, add attribute held_exact boolean;
comment on type q.queue_stats is
  'Per-queue counts: waiting (due now and claimable: waiting jobs and due scheduled ones the reaper has not '
  'promoted yet; not held ones), scheduled (later), running, dead, held (due but held back because their '
  'concurrency key''s slots are taken); oldest_waiting is how long the oldest due job has waited. *_exact says '
  'whether a count is exact or the planner''s estimate (running is always exact).';
"""
# q_data.queue's 17 CHECK constraints become one (settings_are_valid, calling
# q.check_queue_settings): PostgreSQL rebuilds each from its text at every
# INSERT, most of why an enqueue into a new name cost ~3x 0002's.
OLD_QUEUE_CHECKS = (
    ("name_is_valid", "name ~ '^[A-Za-z0-9][A-Za-z0-9_.:-]{0,62}$'"),
    ("lease_is_positive", "lease > interval '0'"),
    ("max_attempts_is_positive", "max_attempts > 0"),
    ("max_crashes_is_positive", "max_crashes > 0"),
    ("backoff_base_is_not_negative", "backoff_base >= interval '0'"),
    ("backoff_max_is_at_least_base", "backoff_max >= backoff_base"),
    ("retention_is_not_negative", "retention >= interval '0'"),
    ("concurrency_is_in_range", "concurrency between 1 and 10000"),
    ("key_concurrency_is_in_range", "key_concurrency between 1 and 1000"),
    ("ordered_keys_run_one_at_a_time", "not ordered or key_concurrency = 1"),
    ("rate_is_in_range", "rate between 1 and 100000"),
    ("per_is_in_range", "per > interval '0' and per <= interval '1 day'"),
    ("rate_and_per_go_together", "(rate is null) = (per is null)"),
    ("key_rate_is_in_range", "key_rate between 1 and 1000"),
    ("key_per_is_in_range", "key_per > interval '0' and key_per <= interval '1 day'"),
    ("key_rate_and_key_per_go_together", "(key_rate is null) = (key_per is null)"),
    ("key_rate_needs_key_concurrency", "key_rate is null or key_concurrency is not null"),
)
QUEUE_CHECKS = (
    "alter table q_data.queue\n"
    + "".join(f"  drop constraint {name},\n" for name, _ in OLD_QUEUE_CHECKS)
    + "  add constraint settings_are_valid check (q.check_queue_settings(\n"
    "    name, lease, max_attempts, max_crashes, backoff_base, backoff_max, retention,\n"
    "    concurrency, key_concurrency, ordered, rate, per, key_rate, key_per, max_lease));\n"
)
QUEUE_CHECKS_DOWN = (
    "alter table q_data.queue\n  drop constraint settings_are_valid,\n"
    + ",\n".join(f"  add constraint {name} check ({rule})" for name, rule in OLD_QUEUE_CHECKS)
    + ";\n"
    "drop function q.check_queue_settings(text, interval, smallint, smallint, interval, interval, interval,"
    " integer, integer, boolean, integer, interval, integer, interval, interval);\n"
)
# Undone before the tables move back (they are still in q_data then).
QUEUE_NAMES_DOWN = """
drop function q.stats(integer, integer, text, boolean);
drop function q.forget_idle_queues(integer, timestamptz);
alter type q.queue_stats drop attribute held_exact, drop attribute held;
comment on type q.queue_stats is
  'Per-queue counts: waiting (due now), scheduled (later), running, dead; oldest_waiting is how long the oldest '
  'due job has waited. *_exact says whether a count is exact or the planner''s estimate (running is always exact).';
alter table q_data.reaper_turn drop column idle_queue_after;
revoke all on function q.throughput(interval), q.throughput_totals(), q.limits(text), q.health() from pgq_monitor;
revoke usage on schema q from pgq_monitor;
"""


# flow storage (issue 21 item 2): the free-slot index, the keys the sweep must look at, the rate
# slots' index by stamp per queue; the rows 0007 made at first sight and nobody uses go (keys with
# held jobs are listed for the sweep, which makes them the slots they need).
FLOW_STORAGE = """
create index key_slot_free_idx on q_data.key_slot (queue_id) where job_id is null;
create table q_data.key_recheck (
  id        bigint   generated always as identity,
  queue_id  integer  not null,
  key       text     not null,
  xact      xid8     not null default pg_catalog.pg_current_xact_id(),
  constraint key_recheck_pkey primary key (id)
);
create index key_recheck_key_idx on q_data.key_recheck (queue_id, key);
comment on table q_data.key_recheck is
  'Keys whose held jobs the reaper''s sweep must look at (an admission held a job without a slot it '
  'could wait for); xact is the inserting transaction, so one transaction lists a key once.';
revoke all on q_data.key_recheck from public;
comment on table q_data.key_slot is
  'Concurrency slots per (queue, concurrency_key), made as jobs are admitted (at most key_concurrency '
  'per key): an admitted job holds one from enqueue (or when it becomes due) until it finishes; the '
  'reaper deletes free ones.';
drop index q_data.key_rate_slot_used_idx;
create index key_rate_slot_used_idx on q_data.key_rate_slot (queue_id, used_at);
comment on table q_data.key_rate_slot is
  'Rate-limit slots per (queue, concurrency_key) of queues with a key_rate, one per start inside the '
  'window: a claim may start a job of the key only on a slot of the key last used at least key_per '
  'ago, or on a new one while the key has fewer than key_rate.';
delete from q_data.key_slot where job_id is null;
insert into q_data.key_recheck (queue_id, key)
select distinct h.queue_id, h.concurrency_key from q_data.job h where h.state = 'h';
delete from q_data.key_rate_slot r
 using q_data.queue qq
 where qq.id = r.queue_id
   and r.used_at < clock_timestamp() - coalesce(qq.key_per, interval '0') - interval '10 seconds';
drop function q.flow_arm();
drop trigger if exists _100_flow_admit_inserted on q_data.job;
drop trigger if exists _100_flow_admit_due on q_data.job;
drop trigger if exists _110_flow_stop on q_data.job;
drop trigger if exists _110_flow_finish on q_data.job;
"""
# Back to 0007: every key with held jobs gets its key_concurrency slot rows again (0007 passes slots
# only; it makes a key's rows at its first admission), the new objects go, and the triggers stay only
# where a limit needs them (q.flow_arm of 0007, run at the end of the downgrade, as 0007's upgrade did).
FLOW_STORAGE_DOWN = """
insert into q_data.key_slot (queue_id, key, n)
select distinct h.queue_id, h.concurrency_key, g
  from q_data.job h
  join q_data.queue qq on qq.id = h.queue_id
  cross join lateral generate_series(1, qq.key_concurrency) g
 where h.state = 'h'
on conflict do nothing;
drop table q_data.key_recheck;
drop index q_data.key_slot_free_idx;
drop index q_data.key_rate_slot_used_idx;
create index key_rate_slot_used_idx on q_data.key_rate_slot (queue_id, key, used_at);
comment on table q_data.key_slot is
  'Concurrency slots per (queue, concurrency_key): an admitted job holds one from enqueue (or when it '
  'becomes due) until it finishes.';
comment on table q_data.key_rate_slot is
  'Rate-limit slots per (queue, concurrency_key) of queues with a key_rate: a claim may start a job of '
  'the key only on a slot of the key last used at least key_per ago.';
drop function q.flow_add_key_slot(integer, text, smallint, bigint);
drop function q.flow_add_key_rate_slot(integer, text, smallint);
drop trigger _100_flow_admit_inserted on q_data.job;
drop trigger _100_flow_admit_due on q_data.job;
drop trigger _110_flow_stop on q_data.job;
drop trigger _110_flow_finish on q_data.job;
"""
REARM_0007 = """
select q.flow_arm()
 where exists (select from q.queue qq
                where coalesce(qq.concurrency, qq.key_concurrency, qq.rate, qq.key_rate) is not null)
    or exists (select from q.queue_slot s where s.job_id is not null)
    or exists (select from q.key_slot s where s.job_id is not null);
"""


def _execute(statements: str) -> None:
    # The raw driver connection, as run_frozen does: SQLAlchemy would read ":" and "%" in comments.
    op.get_bind().connection.driver_connection.execute(statements)



def upgrade() -> None:
    _execute(MOVE)
    _execute(QUEUE_NAMES)  # queue names and monitoring (issue 21 item 5)
    # The scheduler's test clock: off unless the database allows it (issue 21 item 7).
    run_frozen("0008", "schema/082_test_clock.sql")
    run_frozen("0008", "internal/schedule_now.sql")
    run_frozen("0008", "internal/cron_longest_gap.sql")
    run_frozen("0008", "functions/allow_test_clock.sql")
    # q.jobs says each job's concurrency key (issue 23 item 7).
    _execute(JOB_INFO_KEY)
    # Admin calls wait at most 2 s for a lock and then say who holds it (issue 21 item 7).
    run_frozen("0008", "internal/lock_wait_failed.sql")
    # Leases capped by the queue's max_lease (issue 21 item 7); a queue whose lease is longer keeps it as its cap.
    _execute(MAX_LEASE)
    _execute(f"drop function {OLD_CONFIGURE};\n")
    # One CHECK constraint for a queue row's settings, max_lease's rules in it (issue 21 item 5).
    run_frozen("0008", "internal/check_queue_settings.sql")
    _execute(QUEUE_CHECKS)
    _execute(FLOW_STORAGE)  # flow storage (issue 21 item 2)
    # wake-ups on demand (issue 22): an enqueue notifies only queues a session waits for.
    _execute(WAITER)
    run_frozen("0008", "internal/note_wait.sql")
    run_frozen("0008", "functions/cancel.sql")
    run_frozen("0008", "functions/cancel_jobs.sql")
    run_frozen("0008", "functions/claim.sql")
    run_frozen("0008", "functions/complete.sql")
    run_frozen("0008", "functions/complete_many.sql")
    run_frozen("0008", "functions/configure.sql")
    run_frozen("0008", "functions/delete_queue.sql")
    run_frozen("0008", "functions/enqueue.sql")
    run_frozen("0008", "functions/enqueue_many.sql")
    run_frozen("0008", "functions/explain.sql")
    run_frozen("0008", "functions/fail.sql")
    run_frozen("0008", "functions/flow_block_reason.sql")
    run_frozen("0008", "functions/health.sql")
    run_frozen("0008", "functions/heartbeat.sql")
    run_frozen("0008", "functions/job_page.sql")
    run_frozen("0008", "functions/jobs.sql")
    run_frozen("0008", "functions/limits.sql")
    run_frozen("0008", "functions/pause.sql")
    run_frozen("0008", "functions/pause_schedule.sql")
    run_frozen("0008", "functions/purge.sql")
    run_frozen("0008", "functions/reap.sql")
    run_frozen("0008", "functions/release.sql")
    run_frozen("0008", "functions/release_many.sql")
    run_frozen("0008", "functions/resume.sql")
    run_frozen("0008", "functions/resume_schedule.sql")
    run_frozen("0008", "functions/retry.sql")
    run_frozen("0008", "functions/retry_dead.sql")
    run_frozen("0008", "functions/schedule.sql")
    run_frozen("0008", "functions/schedules.sql")
    run_frozen("0008", "functions/session_key.sql")
    run_frozen("0008", "functions/stats.sql")
    run_frozen("0008", "functions/throughput.sql")
    run_frozen("0008", "functions/throughput_totals.sql")
    run_frozen("0008", "functions/unschedule.sql")
    run_frozen("0008", "internal/append_error.sql")
    run_frozen("0008", "internal/claim_holder.sql")
    run_frozen("0008", "internal/claim_under_snapshot.sql")
    run_frozen("0008", "internal/current_claims.sql")
    run_frozen("0008", "internal/ensure_queue.sql")
    run_frozen("0008", "internal/error_entry.sql")
    run_frozen("0008", "internal/finish.sql")
    run_frozen("0008", "internal/fire_schedules.sql")
    run_frozen("0008", "internal/fire_slot.sql")
    run_frozen("0008", "internal/flow_add_key_slot.sql")
    run_frozen("0008", "internal/flow_add_key_rate_slot.sql")
    run_frozen("0008", "internal/flow_claim.sql")
    run_frozen("0008", "internal/flow_claim_jobs.sql")
    run_frozen("0008", "internal/flow_claim_keyed.sql")
    run_frozen("0008", "internal/flow_configure.sql")
    run_frozen("0008", "internal/flow_pass_key_slot.sql")
    run_frozen("0008", "internal/flow_reasons.sql")
    run_frozen("0008", "internal/flow_sweep.sql")
    run_frozen("0008", "internal/flow_take_key_slot.sql")
    run_frozen("0008", "internal/flow_wake.sql")
    run_frozen("0008", "internal/flow_want.sql")
    run_frozen("0008", "internal/forget_ended_sessions.sql")
    run_frozen("0008", "internal/forget_idle_queues.sql")  # queue names and monitoring (issue 21 item 5)
    run_frozen("0008", "internal/gone_owners.sql")
    run_frozen("0008", "internal/lock_space.sql")
    run_frozen("0008", "internal/lost_reason.sql")
    run_frozen("0008", "internal/notify_queues.sql")
    run_frozen("0008", "internal/promote_all_due.sql")
    run_frozen("0008", "internal/promote_due.sql")
    run_frozen("0008", "internal/purge_history.sql")
    run_frozen("0008", "internal/purge_receipts.sql")
    run_frozen("0008", "internal/queue_named.sql")
    run_frozen("0008", "internal/roll_up_tally.sql")
    run_frozen("0008", "internal/tally.sql")
    run_frozen("0008", "owner.sql")
    run_frozen("0008", "triggers/flow.sql")
    run_frozen("0008", "triggers/notify_enqueued.sql")
    _execute(COMMENTS)
    run_frozen("0008", "owner.sql")  # last: pgq_owner owns it all


def downgrade() -> None:
    _execute(FLOW_STORAGE_DOWN)  # flow storage (issue 21 item 2)
    _execute(QUEUE_CHECKS_DOWN)  # queue names and monitoring (issue 21 item 5)
    _execute(QUEUE_NAMES_DOWN)
    _execute(
        "drop function q.allow_test_clock(boolean);\n"
        "drop function q.cron_longest_gap(q.cron_spec);\n"
        "drop function q.lock_wait_failed(text, text);\n"
        f"drop function {NEW_CONFIGURE};\n"
        "alter table q_data.queue drop column max_lease;\n"
        "drop table q_data.test_clock;\n"
        # wake-ups on demand (issue 22)
        "drop function q.note_wait(text, integer, boolean);\n"
        "drop table q_data.waiter;\n"
    )
    _execute(JOB_INFO_NO_KEY)
    _execute(MOVE_BACK)
    run_frozen("0004", "internal/schedule_now.sql")
    run_frozen("0001", "functions/cancel.sql")
    run_frozen("0006", "functions/cancel_jobs.sql")
    run_frozen("0007", "functions/claim.sql")
    run_frozen("0006", "functions/complete.sql")
    run_frozen("0006", "functions/complete_many.sql")
    run_frozen("0007", "functions/configure.sql")
    run_frozen("0006", "functions/delete_queue.sql")
    run_frozen("0005", "functions/enqueue.sql")
    run_frozen("0005", "functions/enqueue_many.sql")
    run_frozen("0007", "functions/explain.sql")
    run_frozen("0006", "functions/fail.sql")
    run_frozen("0007", "functions/flow_block_reason.sql")
    run_frozen("0007", "functions/health.sql")
    run_frozen("0003", "functions/heartbeat.sql")
    run_frozen("0006", "functions/job_page.sql")
    run_frozen("0006", "functions/jobs.sql")
    run_frozen("0007", "functions/limits.sql")
    run_frozen("0001", "functions/pause.sql")
    run_frozen("0004", "functions/pause_schedule.sql")
    run_frozen("0006", "functions/purge.sql")
    run_frozen("0006", "functions/reap.sql")
    run_frozen("0001", "functions/release.sql")
    run_frozen("0002", "functions/release_many.sql")
    run_frozen("0001", "functions/resume.sql")
    run_frozen("0004", "functions/resume_schedule.sql")
    run_frozen("0005", "functions/retry.sql")
    run_frozen("0006", "functions/retry_dead.sql")
    run_frozen("0004", "functions/schedule.sql")
    run_frozen("0006", "functions/schedules.sql")
    run_frozen("0003", "functions/session_key.sql")
    run_frozen("0006", "functions/stats.sql")
    run_frozen("0006", "functions/throughput.sql")
    run_frozen("0006", "functions/throughput_totals.sql")
    run_frozen("0004", "functions/unschedule.sql")
    run_frozen("0003", "internal/append_error.sql")
    run_frozen("0006", "internal/claim_holder.sql")
    run_frozen("0001", "internal/claim_under_snapshot.sql")
    run_frozen("0002", "internal/current_claims.sql")
    run_frozen("0001", "internal/ensure_queue.sql")
    run_frozen("0003", "internal/error_entry.sql")
    run_frozen("0006", "internal/finish.sql")
    run_frozen("0004", "internal/fire_schedules.sql")
    run_frozen("0004", "internal/fire_slot.sql")
    run_frozen("0007", "internal/flow_arm.sql")
    run_frozen("0007", "internal/flow_claim.sql")
    run_frozen("0005", "internal/flow_claim_jobs.sql")
    run_frozen("0007", "internal/flow_claim_keyed.sql")
    run_frozen("0007", "internal/flow_configure.sql")
    run_frozen("0005", "internal/flow_pass_key_slot.sql")
    run_frozen("0007", "internal/flow_reasons.sql")
    run_frozen("0007", "internal/flow_sweep.sql")
    run_frozen("0007", "internal/flow_take_key_slot.sql")
    run_frozen("0005", "internal/flow_wake.sql")
    run_frozen("0005", "internal/flow_want.sql")
    run_frozen("0003", "internal/forget_ended_sessions.sql")
    run_frozen("0003", "internal/gone_owners.sql")
    run_frozen("0003", "internal/lock_space.sql")
    run_frozen("0001", "internal/lost_reason.sql")
    run_frozen("0003", "internal/notify_queues.sql")
    run_frozen("0003", "internal/promote_all_due.sql")
    run_frozen("0001", "internal/promote_due.sql")
    run_frozen("0003", "internal/purge_history.sql")
    run_frozen("0003", "internal/purge_receipts.sql")
    run_frozen("0006", "internal/queue_named.sql")
    run_frozen("0006", "internal/roll_up_tally.sql")
    run_frozen("0006", "internal/tally.sql")
    run_frozen("0007", "triggers/flow.sql")
    run_frozen("0003", "triggers/notify_enqueued.sql")
    _execute(OLD_COMMENTS)
    _execute(REARM_0007)  # flow storage (issue 21 item 2)
    run_frozen("0003", "owner.sql")  # last: pgq_owner owns it all
