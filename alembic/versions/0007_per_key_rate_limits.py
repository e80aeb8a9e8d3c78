"""Flow control: rate limits per concurrency key.

q.configure(queue, key_rate => N, key_per => interval) caps the starts of each
concurrency key in any window of key_per, with slot rows per key
(q.key_rate_slot) like the queue's rate. A claim that meets a job whose key is
at its rate puts it off (state s, q.job.rate_wait) until the key's window frees
its next start, so claims never step over it again (q.flow_claim_keyed). A
per-key rate needs key_concurrency, which bounds the jobs of a key that can be
put off. q.configure and q.flow_configure take the new arguments and q.limits
returns two more columns (so they are dropped and made again). See
sql/schema/075_key_rate.sql.

Flow control's row triggers on q.job are made by q.flow_arm with the first
limit of the database instead of at install, and dropped here where no limit
needs them: they cost unlimited queues every claim, fail and completion.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01T19:18:27+00:00
"""

from __future__ import annotations

import sys
from pathlib import Path

from alembic import op

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from pgq_sql import run_frozen  # noqa: E402

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

# Signatures (or return types) that change: CREATE OR REPLACE would add an overload or fail.
OLD_SIGNATURES = (
    "q.configure(text, interval, integer, integer, interval, interval, boolean, interval,"
    " integer, integer, boolean, integer, interval, text[])",
    "q.flow_configure(integer, integer, integer, boolean, integer, interval, text[])",
    "q.limits(text)",
)
NEW_SIGNATURES = (
    "q.configure(text, interval, integer, integer, interval, interval, boolean, interval,"
    " integer, integer, boolean, integer, interval, text[], integer, interval)",
    "q.flow_configure(integer, integer, integer, boolean, integer, interval, text[], integer, interval)",
    "q.limits(text)",
    "q.flow_claim_keyed(q.queue, integer, timestamptz, timestamptz, integer, smallint[])",
    "q.flow_arm()",
)
FLOW_TRIGGERS = ("_100_flow_admit_inserted", "_100_flow_admit_due", "_110_flow_stop", "_110_flow_finish")
# Flow control's triggers on q.job stay only where a limit needs them (q.flow_arm makes them with the
# first limit): a queue with a limit, or a slot still held by a job of a queue whose limit went.
DISARM = "".join(f"drop trigger {t} on q.job;\n" for t in FLOW_TRIGGERS) + """
select q.flow_arm()
 where exists (select from q.queue qq
                where coalesce(qq.concurrency, qq.key_concurrency, qq.rate, qq.key_rate) is not null)
    or exists (select from q.queue_slot s where s.job_id is not null)
    or exists (select from q.key_slot s where s.job_id is not null);
"""
REARM = "".join(f"drop trigger if exists {t} on q.job;\n" for t in FLOW_TRIGGERS)
# Jobs a key rate put off are waiting again (their key slot kept); then the tables go.
DROP_TABLES = """
update q.job set state = 'w', run_at = least(run_at, clock_timestamp()), rate_wait = null where rate_wait;
drop table q.key_rate_slot;
alter table q.job drop column rate_wait;
alter table q.queue drop column key_rate, drop column key_per;
"""


def _execute(statements: str) -> None:
    # The raw driver connection, as run_frozen does: SQLAlchemy would read ":" and "%" in comments.
    op.get_bind().connection.driver_connection.execute(statements)


def upgrade() -> None:
    run_frozen("0007", "schema/075_key_rate.sql")
    _execute("".join(f"drop function {signature};\n" for signature in OLD_SIGNATURES))
    run_frozen("0007", "internal/flow_claim_keyed.sql")
    run_frozen("0007", "internal/flow_take_key_slot.sql")
    run_frozen("0007", "internal/flow_sweep.sql")
    run_frozen("0007", "internal/flow_reasons.sql")
    run_frozen("0007", "internal/flow_arm.sql")
    run_frozen("0007", "internal/flow_configure.sql")
    run_frozen("0007", "internal/flow_claim.sql")
    run_frozen("0007", "functions/claim.sql")
    run_frozen("0007", "functions/configure.sql")
    run_frozen("0007", "functions/explain.sql")
    run_frozen("0007", "functions/flow_block_reason.sql")
    run_frozen("0007", "functions/health.sql")
    run_frozen("0007", "functions/limits.sql")
    run_frozen("0007", "triggers/flow.sql")  # the trigger functions only, now
    _execute(DISARM)
    run_frozen("0003", "owner.sql")  # last: pgq_owner owns it all


def downgrade() -> None:
    _execute("".join(f"drop function {signature};\n" for signature in NEW_SIGNATURES))
    run_frozen("0005", "internal/flow_configure.sql")
    run_frozen("0005", "functions/configure.sql")
    run_frozen("0006", "functions/limits.sql")
    run_frozen("0005", "internal/flow_claim.sql")
    run_frozen("0005", "functions/claim.sql")
    run_frozen("0006", "functions/explain.sql")
    run_frozen("0006", "functions/flow_block_reason.sql")
    run_frozen("0006", "functions/health.sql")
    run_frozen("0005", "internal/flow_reasons.sql")
    run_frozen("0005", "internal/flow_sweep.sql")
    run_frozen("0005", "internal/flow_take_key_slot.sql")
    _execute(REARM)
    run_frozen("0005", "triggers/flow.sql")  # functions and triggers, made at install again
    _execute(DROP_TABLES)
    run_frozen("0003", "owner.sql")
