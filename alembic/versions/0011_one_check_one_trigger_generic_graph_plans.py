"""One CHECK constraint and one trigger per event on q_data.job; generic plans for graphs (revision 0011).

PostgreSQL reads a table's CHECK constraints and its triggers' WHEN clauses
from their stored text again for every statement that writes a row, so each
one added since 0002 made every claim, fail, release and complete a little
dearer (design.md#one-check-constraint-one-trigger-per-event):

- q_data.job's seven CHECK constraints become one, job_row_is_consistent,
  with the same seven rules (sql/schema/097_one_job_check.sql).
- The three BEFORE UPDATE OF state triggers (_100_flow_admit_due,
  _100_deps_admit_ready, _110_flow_stop) become one, _100_flow_state_changed,
  and the two AFTER DELETE ones (_110_flow_finish, _120_deps_finish) one,
  _110_job_ended; their functions q.tg_job__flow (also for the BEFORE INSERT
  trigger, _100_flow_admit_inserted) and q.tg_job__ended do what the five did.
- q.deps_resolve uses generic plans: it was planned again at every completion
  of a job with children.
- Comments only: five functions that named sql/triggers/deps.sql name
  sql/triggers/job_ended.sql (created again; downgrade restores them).

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-06T00:33:24+00:00
"""

from __future__ import annotations

import sys
from pathlib import Path

from alembic import op

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from pgq_sql import run_frozen  # noqa: E402

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None

# The same text as sql/schema/097_one_job_check.sql and 096_deps.sql.
TABLES_UP = """
alter table q_data.job
  drop constraint state_is_known,
  drop constraint running_job_has_claim,
  drop constraint max_attempts_is_positive,
  drop constraint held_job_has_no_key_slot,
  drop constraint queue_slot_only_while_running,
  drop constraint parents_left_is_not_negative,
  drop constraint pending_job_has_parents,
  add constraint job_row_is_consistent check (
        state = any ('{w,s,r,h,p,o}'::"char"[])
    and (state = 'r') = (token is not null)
    and max_attempts > 0
    and (state <> 'h' or key_slot is null)
    and (queue_slot is null or state = 'r')
    and parents_left >= 0
    and (state <> 'p' or parents_left > 0));

comment on constraint job_row_is_consistent on q_data.job is
  'Every rule a job row keeps, in one constraint (each is parsed again per writing statement): the '
  'state is known (w s r h p o); a running job and only a running job has a claim token; '
  'max_attempts is positive; a held job has no key slot; a queue slot only while running; '
  'parents_left is not negative and a pending job has parents left.';

comment on column q_data.job.has_children is
  'true when some job was enqueued after this one: its end is passed to them (trigger '
  '_110_job_ended). NULL otherwise, so jobs without children pay one WHEN test.';
"""

# Back to 0010's seven constraints, in the order 0010 made them.
TABLES_DOWN = """
alter table q_data.job
  drop constraint job_row_is_consistent,
  add constraint running_job_has_claim check ((state = 'r') = (token is not null)),
  add constraint max_attempts_is_positive check (max_attempts > 0),
  add constraint held_job_has_no_key_slot check (state <> 'h' or key_slot is null),
  add constraint queue_slot_only_while_running check (queue_slot is null or state = 'r'),
  add constraint state_is_known check (state in ('w', 's', 'r', 'h', 'p', 'o')),
  add constraint parents_left_is_not_negative check (parents_left >= 0),
  add constraint pending_job_has_parents check (state <> 'p' or parents_left > 0);

comment on column q_data.job.has_children is
  'true when some job was enqueued after this one: its end is passed to them (trigger '
  '_120_deps_finish). NULL otherwise, so jobs without children pay one WHEN test.';
"""

TRIGGERS_0010 = """
drop trigger _100_flow_admit_inserted on q_data.job;
drop trigger _100_flow_admit_due on q_data.job;
drop trigger _100_deps_admit_ready on q_data.job;
drop trigger _110_flow_stop on q_data.job;
drop trigger _110_flow_finish on q_data.job;
drop trigger _120_deps_finish on q_data.job;
drop function q.tg_job__flow_admit();
drop function q.tg_job__flow_stop();
drop function q.tg_job__flow_finish();
drop function q.tg_job__deps_finish();
"""

TRIGGERS_0011 = """
drop trigger _100_flow_admit_inserted on q_data.job;
drop trigger _100_flow_state_changed on q_data.job;
drop trigger _110_job_ended on q_data.job;
drop function q.tg_job__flow();
drop function q.tg_job__ended();
"""

# The newest earlier copy of each file whose comments changed (downgrade restores it).
COMMENT_ONLY = {
    "functions/cancel.sql": "0009",
    "functions/cancel_jobs.sql": "0009",
    "functions/fail.sql": "0010",
    "functions/purge.sql": "0009",
    "functions/reap.sql": "0010",
}


def _execute(statements: str) -> None:
    # The raw driver connection, as run_frozen does: SQLAlchemy would read ":" and "%" in comments.
    op.get_bind().connection.driver_connection.execute(statements)


def upgrade() -> None:
    _execute(TABLES_UP)
    _execute(TRIGGERS_0010)
    run_frozen("0011", "triggers/flow.sql")
    run_frozen("0011", "triggers/job_ended.sql")
    run_frozen("0011", "internal/deps_resolve.sql")
    for name in COMMENT_ONLY:
        run_frozen("0011", name)
    run_frozen("0008", "owner.sql")  # last: pgq_owner owns it all


def downgrade() -> None:
    for name, earlier in COMMENT_ONLY.items():
        run_frozen(earlier, name)
    run_frozen("0009", "internal/deps_resolve.sql")
    _execute(TRIGGERS_0011)
    run_frozen("0008", "triggers/flow.sql")
    run_frozen("0009", "triggers/deps.sql")
    _execute(TABLES_DOWN)
    run_frozen("0008", "owner.sql")  # the trigger functions made again belong to pgq_owner
