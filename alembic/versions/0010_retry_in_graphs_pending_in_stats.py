"""Retry in graphs, pending and on-hold jobs in q.stats (revision 0010).

- q.retry (and q.retry_dead, which calls it) puts a job back in its graph
  (q.deps_rejoin): a child waits again, pending, for its parents that have
  not completed and run again (an operator retried them first); children on
  hold because the job failed wait for it again. 0009 put a child straight
  back as waiting, so it could run before the parent it depends on.
- q.stats counts pending (waiting for parents) and on-hold jobs per queue
  (pending, pending_exact, on_hold, on_hold_exact, added to q.queue_stats)
  and lists a queue whose only jobs are pending, through a new partial index
  job_pending_queue_idx (queue_id, state) where state in ('p', 'o').
- Comments only (COMMENT_ONLY below): the comments inside 22 function
  bodies cite docs/manual/design.md instead of the issue tracker, and the
  four claim paths' files say why their statement is written four times; the
  same code, created again so that pg_get_functiondef matches sql/.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-05T21:17:13+00:00
"""

from __future__ import annotations

import sys
from pathlib import Path

from alembic import op

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from pgq_sql import run_frozen  # noqa: E402

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

# The same text as sql/schema/020_types.sql and 096_deps.sql.
TABLES_UP = """
alter type q.queue_stats
  add attribute pending        bigint,
  add attribute pending_exact  boolean,
  add attribute on_hold        bigint,
  add attribute on_hold_exact  boolean;

comment on type q.queue_stats is
  'Per-queue counts: waiting (due now and claimable: waiting jobs and due scheduled ones the reaper has'
  ' not promoted yet; not held ones), scheduled (later), running, dead, held (due but held back because'
  ' their concurrency key''s slots are taken), pending (waiting for parents) and on_hold (a parent '
  'failed under the hold policy); oldest_waiting is how long the oldest due job has waited. *_exact '
  'says whether a count is exact or the planner''s estimate (running is always exact).';

create index job_pending_queue_idx on q_data.job (queue_id, state) where state in ('p', 'o');
"""

TABLES_DOWN = """
drop index q_data.job_pending_queue_idx;

alter type q.queue_stats
  drop attribute on_hold_exact,
  drop attribute on_hold,
  drop attribute pending_exact,
  drop attribute pending;

comment on type q.queue_stats is
  'Per-queue counts: waiting (due now and claimable: waiting jobs and due scheduled ones the reaper has'
  ' not promoted yet; not held ones), scheduled (later), running, dead, held (due but held back because'
  ' their concurrency key''s slots are taken); oldest_waiting is how long the oldest due job has '
  'waited. *_exact says whether a count is exact or the planner''s estimate (running is always exact).';
"""


# The newest earlier copy of each file whose comments changed (downgrade restores it).
COMMENT_ONLY = {
    "functions/adopt.sql": "0009",
    "functions/busy_keys.sql": "0009",
    "functions/claim.sql": "0009",
    "functions/complete.sql": "0009",
    "functions/complete_many.sql": "0009",
    "functions/configure.sql": "0009",
    "functions/enqueue_many.sql": "0008",
    "functions/explain.sql": "0009",
    "functions/fail.sql": "0009",
    "functions/health.sql": "0008",
    "functions/heartbeat.sql": "0009",
    "functions/job_page.sql": "0008",
    "functions/reap.sql": "0009",
    "functions/throughput_totals.sql": "0009",
    "internal/check_queue_settings.sql": "0008",
    "internal/claim_under_snapshot.sql": "0008",
    "internal/finish.sql": "0009",
    "internal/flow_add_key_slot.sql": "0008",
    "internal/forget_idle_queues.sql": "0009",
    "internal/note_wait.sql": "0009",
    "internal/purge_deps.sql": "0009",
    "internal/flow_claim_jobs.sql": "0008",
    "internal/flow_claim_keyed.sql": "0009",
    "triggers/notify_enqueued.sql": "0009",
}


def _execute(statements: str) -> None:
    # The raw driver connection, as run_frozen does: SQLAlchemy would read ":" and "%" in comments.
    op.get_bind().connection.driver_connection.execute(statements)


def upgrade() -> None:
    _execute(TABLES_UP)
    run_frozen("0010", "internal/deps_rejoin.sql")
    run_frozen("0010", "functions/retry.sql")
    run_frozen("0010", "functions/stats.sql")
    for name in COMMENT_ONLY:
        run_frozen("0010", name)
    run_frozen("0008", "owner.sql")  # last: pgq_owner owns it all


def downgrade() -> None:
    for name, earlier in COMMENT_ONLY.items():
        run_frozen(earlier, name)
    run_frozen("0008", "functions/retry.sql")
    run_frozen("0009", "functions/stats.sql")
    _execute("drop function q.deps_rejoin(bigint);\n")
    _execute(TABLES_DOWN)
