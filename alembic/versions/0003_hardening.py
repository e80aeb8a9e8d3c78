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
    run_frozen("0003", "schema/050_sessions.sql")
    execute(CARRY_SESSIONS)
    run_frozen("0003", "internal/lock_space.sql")
    run_frozen("0003", "internal/notify_allowed.sql")
    run_frozen("0003", "internal/notify_queues.sql")
    run_frozen("0003", "internal/gone_owners.sql")
    run_frozen("0003", "internal/forget_ended_sessions.sql")
    run_frozen("0003", "triggers/notify_enqueued.sql")
    run_frozen("0003", "functions/session_key.sql")
    run_frozen("0003", "functions/claim.sql")
    run_frozen("0003", "functions/reap.sql")


def downgrade() -> None:
    execute(RESTORE_SEQUENCE)
    run_frozen("0001", "functions/claim.sql")
    run_frozen("0001", "functions/reap.sql")
    run_frozen("0001", "functions/session_key.sql")
    run_frozen("0001", "internal/lock_space.sql")
    run_frozen("0001", "internal/notify_queues.sql")
    execute("drop trigger _900_notify_enqueued on q.job")
    run_frozen("0001", "triggers/notify_enqueued.sql")
    execute(
        "drop function q.gone_owners(integer);"
        " drop function q.forget_ended_sessions(integer);"
        " drop function q.notify_allowed();"
        " drop table q.session;"
        " drop table q.reaper_turn;"
        " drop sequence q.session_seq;"
    )
