"""Hardening: no role without pgq rights can stop recovery, hang workers or block enqueues.

What an adversarial review found in 0002 (issue 9) and what replaces it:

* Session keys were advisory locks that any login role could take, hold or
  read in pg_locks: holding the next keys made q.session_key() wait forever,
  and the caller's own pg_advisory_unlock_all() / RESET ALL made a live job
  look crashed. Keys are now rows of q.session (pid, backend_start); a key is
  alive while pg_stat_activity shows that backend. The upgrade carries the
  live 0002 keys over from pg_locks, so claims made before it are still
  recognised as live, and still reaped if their session dies.
* The reaper's turn was the advisory lock (q.lock_space(), 0): it is a row
  lock on q.reaper_turn now, which only pgq's owner can take. (The migration
  lock moved from an advisory lock to a table lock in alembic/env.py.)
* q.claim's default owner is lease-only: a pooled connection closed while its
  job ran made the job look crashed. Instant reclaim needs
  owner => q.session_key() from a connection the caller keeps open.
* NOTIFY is skipped while the notification queue is filling
  (pgq.notify_queue_limit, default 0.5), so it never fails a commit.
* Bounded storage per job: error messages cut at 4,096 characters, the
  newest 20 entries kept (fail, fail_many, reap, retry). Payload caps count
  the decompressed value; the depth cap counts nested containers (101 nested
  empty arrays are refused). Non-finite run_at is refused (22023).
* q.claim returns rows in claim order; q.reap visits only queues that have
  scheduled jobs or history (no loop over every q.queue row); q.heartbeat
  says 'cancelled' only to the cancelled claim's token
  (q.job_history.token); q.stats says oldest_waiting NULL when nothing is due.
* q.enqueue_many takes dedup_keys (one per element) and an idempotency_key
  for the whole call (receipts in q.enqueue_receipt, 24 hours), so a batch
  whose commit reply was lost can be retried and returns the same ids.
* Every pgq object belongs to the NOLOGIN role pgq_owner (owner.sql runs
  last; the downgrade gives them back to the migration runner).

Downgrade: running claims become lease-only (0002 would read a key without
its advisory lock as a dead session). Restart workers after a downgrade: a
worker that still passes a 0003 key would have its jobs reclaimed by 0002.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from __future__ import annotations

import sys
from pathlib import Path

from alembic import op

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from pgq_sql import run_frozen  # noqa: E402

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

# The live 0002 session keys: session-level advisory locks (q.lock_space(), key)
# held in this database. Dropping q.session_key_seq first waits for every
# transaction that is drawing a key through 0002's q.session_key() (nextval
# holds a lock on the sequence until commit), so each key drawn before that
# is in pg_locks by now, and a 0002 call that comes later fails at nextval
# (the sequence is gone) instead of taking a key q.session never hears of.
CARRY_SESSIONS = """
select setval('q.session_seq', greatest(s.last_value, 1), s.last_value is not null)
  from pg_catalog.pg_sequences s
 where s.schemaname = 'q' and s.sequencename = 'session_key_seq';
drop sequence q.session_key_seq;
insert into q.session (key, pid, backend_start)
select distinct on (l.objid) l.objid::bigint::integer, l.pid, a.backend_start
  from pg_catalog.pg_locks l
  left join pg_catalog.pg_stat_get_activity(l.pid) a on true
 where l.locktype = 'advisory'
   and l.granted
   and l.database = (select d.oid from pg_catalog.pg_database d where d.datname = pg_catalog.current_database())
   and l.classid = 1885827328::oid
   and l.objsubid = 2
   and l.objid::bigint between 1 and 2147483647
 order by l.objid, l.pid
on conflict (key) do nothing;
"""

TABLE_DELTAS = """
alter table q.job_history add column token uuid;
comment on column q.job_history.token is
  'For a job cancelled while running: the token of the claim it had, '
  'so only that claim''s q.heartbeat answers ''cancelled''.';
comment on column q.job.errors is
  'The newest 20 failed or lost attempts: [{attempt, at, error, crashed}], each error cut at 4,096 characters.';
comment on column q.job_history.errors is
  'The newest 20 failed or lost attempts: [{attempt, at, error, crashed}], each error cut at 4,096 characters.';
"""

TABLE_DELTAS_DOWN = """
alter table q.job_history drop column token;
comment on column q.job.errors is
  'Every failed or lost attempt: [{attempt, at, error, crashed}].';
comment on column q.job_history.errors is
  'Every failed or lost attempt: [{attempt, at, error, crashed}].';
"""

# Back to the migration runner, as 0002 left them (owner.sql in reverse).
OWNERSHIP_BACK = """
do $$
declare
  v_ddl text;
begin
  foreach v_ddl in array array(
    select format('alter schema q owner to %I', current_user)
    union all
    select format('alter function %s owner to %I', p.oid::regprocedure::text, current_user)
      from pg_catalog.pg_proc p where p.pronamespace = 'q'::regnamespace
    union all
    select format('alter table q.%I owner to %I', c.relname, current_user)
      from pg_catalog.pg_class c
     where c.relnamespace = 'q'::regnamespace and c.relkind in ('r', 'p') and c.relname <> 'alembic_version'
    union all
    select format('alter sequence q.%I owner to %I', c.relname, current_user)
      from pg_catalog.pg_class c
     where c.relnamespace = 'q'::regnamespace and c.relkind = 'S'
       and not exists (select from pg_catalog.pg_depend d
                        where d.classid = 'pg_class'::regclass and d.objid = c.oid and d.deptype in ('a', 'i'))
    union all
    select format('alter type q.%I owner to %I', t.typname, current_user)
      from pg_catalog.pg_type t join pg_catalog.pg_class c on c.oid = t.typrelid
     where t.typnamespace = 'q'::regnamespace and c.relkind = 'c'
  ) loop
    execute v_ddl;
  end loop;
end
$$;
"""

RESTORE_SEQUENCE = """
create sequence q.session_key_seq as integer minvalue 1 cycle;
comment on sequence q.session_key_seq is
  'Source of per-session liveness keys (see q.session_key).';
revoke all on sequence q.session_key_seq from public;
select setval('q.session_key_seq', greatest(s.last_value, 1), s.last_value is not null)
  from pg_catalog.pg_sequences s
 where s.schemaname = 'q' and s.sequencename = 'session_seq';
-- 0002 reads a key without its advisory lock as a dead session: lease only.
update q.job set owner = null where state = 'r' and owner is not null;
"""


def execute(sql: str) -> None:
    """Run SQL text on the raw psycopg connection (op.execute would read ':name' and '%')."""
    with op.get_bind().connection.driver_connection.cursor() as cursor:
        cursor.execute(sql)


def upgrade() -> None:
    run_frozen("0003", "schema/015_roles.sql")
    run_frozen("0003", "schema/050_sessions.sql")
    run_frozen("0003", "schema/055_enqueue_receipts.sql")
    execute(CARRY_SESSIONS)
    execute(TABLE_DELTAS)
    run_frozen("0003", "internal/lock_space.sql")
    run_frozen("0003", "internal/payload_size.sql")
    run_frozen("0003", "internal/check_job_options.sql")
    run_frozen("0003", "internal/notify_allowed.sql")
    run_frozen("0003", "internal/notify_queues.sql")
    run_frozen("0003", "internal/error_entry.sql")
    run_frozen("0003", "internal/append_error.sql")
    run_frozen("0003", "internal/finish.sql")
    run_frozen("0003", "internal/promote_all_due.sql")
    run_frozen("0003", "internal/purge_history.sql")
    run_frozen("0003", "internal/purge_receipts.sql")
    run_frozen("0003", "internal/gone_owners.sql")
    run_frozen("0003", "internal/forget_ended_sessions.sql")
    run_frozen("0003", "triggers/notify_enqueued.sql")
    run_frozen("0003", "functions/session_key.sql")
    run_frozen("0003", "functions/enqueue.sql")
    execute("drop function q.enqueue_many(text, jsonb, timestamptz, integer, integer)")  # new arguments
    run_frozen("0003", "functions/enqueue_many.sql")
    run_frozen("0003", "functions/claim.sql")
    run_frozen("0003", "functions/fail.sql")
    run_frozen("0003", "functions/heartbeat.sql")
    run_frozen("0003", "functions/retry.sql")
    run_frozen("0003", "functions/stats.sql")
    run_frozen("0003", "functions/reap.sql")
    run_frozen("0003", "owner.sql")


def downgrade() -> None:
    execute(OWNERSHIP_BACK)
    execute(RESTORE_SEQUENCE)
    run_frozen("0001", "functions/claim.sql")
    run_frozen("0001", "functions/reap.sql")
    run_frozen("0001", "functions/session_key.sql")
    run_frozen("0001", "functions/enqueue.sql")
    execute("drop function q.enqueue_many(text, jsonb, timestamptz, integer, integer, text[], text)")
    run_frozen("0001", "functions/enqueue_many.sql")
    run_frozen("0001", "functions/fail.sql")
    run_frozen("0001", "functions/heartbeat.sql")
    run_frozen("0001", "functions/retry.sql")
    run_frozen("0001", "functions/stats.sql")
    run_frozen("0001", "internal/lock_space.sql")
    run_frozen("0001", "internal/check_job_options.sql")
    run_frozen("0001", "internal/notify_queues.sql")
    run_frozen("0001", "internal/error_entry.sql")
    run_frozen("0001", "internal/finish.sql")
    execute("drop trigger _900_notify_enqueued on q.job")
    run_frozen("0001", "triggers/notify_enqueued.sql")
    execute(TABLE_DELTAS_DOWN)
    execute(
        "drop function q.gone_owners(integer);"
        " drop function q.forget_ended_sessions(integer);"
        " drop function q.notify_allowed();"
        " drop function q.append_error(jsonb, jsonb);"
        " drop function q.payload_size(jsonb);"
        " drop function q.promote_all_due(integer);"
        " drop function q.purge_history(integer, timestamp with time zone);"
        " drop function q.purge_receipts(integer, timestamp with time zone);"
        " drop table q.enqueue_receipt;"
        " drop table q.session;"
        " drop table q.reaper_turn;"
        " drop sequence q.session_seq;"
    )
    # pgq_owner stays: roles are cluster-wide and other databases may use them.
