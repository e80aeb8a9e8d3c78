"""RELIABILITY.md from the figures of the last run (see figures.py): every
number in it was measured by the run that wrote it."""

from __future__ import annotations

import json
import platform
import subprocess
import time
from pathlib import Path
from typing import Any

PROMISE = (
    "A committed enqueue is never lost; a job is held by at most one live claim at a time; only the "
    "holder of the current claim can finish it; every job reaches exactly one terminal state; a job runs "
    "again only after its claim was lost, and that is visible (its attempt and crash counters, and an "
    "entry in its errors)."
)

FAST = "`make test` (or `.venv/bin/python -m pytest tests/reliability/{file}`)"
SOAK = "`make soak` (or `cd tests && ../.venv/bin/python -m reliability.soak.run --skip-fast --only {name}`)"

# (suite, title, where/command, what it checks, key figures to show in the summary table)
SUITES: list[tuple[str, str, str, str, list[str]]] = [
    ("1", "Contention", FAST.format(file="test_contention.py"),
     "8 real worker processes (`pgq_client.Worker`, claims of 1-10) drain 10,000 jobs (50,000 in `make soak`); "
     "the job body writes an independent ledger: 0 lost, 0 duplicate executions, 0 duplicate terminal writes, "
     "and the workers' own count of successful completes equals the job count.",
     ["jobs", "workers", "lost", "duplicate_executions", "duplicate_terminal_writes", "seconds"]),
    ("2", "SIGKILL chaos", SOAK.format(name="chaos"),
     "8 workers, 10,000 jobs of 5-50 ms enqueued at 220/s, a random worker SIGKILLed and restarted every 2 s "
     "(at least 20 kills): 0 lost; duplicate executions only for jobs whose holder was killed (at most kills x 5); "
     "each killed worker's claims back within 2 s; nothing left running 2 s after the last kill.",
     ["jobs", "kills", "restarts", "lost", "duplicate_executions", "duplicate_terminal_writes", "worst_recovery_s"]),
    ("3", "PostgreSQL crash", SOAK.format(name="crash"),
     "The chaos load while the soak cluster is restarted with `pg_ctl restart -m immediate` twice and `-m fast` "
     "once: every enqueue that returned success exists afterwards and finishes once; no job runs twice (every "
     "worker survives: it takes its claims back with `q.adopt` within the reaper's restart grace, revision "
     "0009); every worker resumes within 10 s.",
     ["jobs_enqueued_ok", "restarts", "lost", "duplicate_executions", "duplicate_terminal_writes", "worst_resume_s"]),
    ("4", "Long jobs are never stolen", FAST.format(file="test_long_jobs_are_never_stolen.py"),
     "Lease 3 s with heartbeats, job runs 20 s: reclaimed 0 times while peers and the test reap. Heartbeats "
     "stopped (worker SIGSTOPped, session alive): reclaimed only after the lease. Worker SIGKILLed: reclaimed "
     "within 2 s (default 5-minute lease, so by session evidence).",
     ["reclaimed", "reclaimed_after_lease_end_s", "reclaimed_after_kill_s", "duplicate_executions"]),
    ("5", "Reaper is bounded", FAST.format(file="test_reaper_is_bounded.py"),
     "50,000 expired leases, and 50,000 claims of 50,000 gone sessions, come back in batches of at most "
     "1,000; no q.reap() transaction takes 1 s.",
     ["claims", "sessions", "reap_calls", "largest_batch", "slowest_reap_s"]),
    ("6", "Two-session interleavings", FAST.format(file="test_two_session_interleavings.py"),
     "Two real sessions stepped deterministically (each step waits until PostgreSQL reports the other session "
     "finished or waiting on a lock): claim||claim, complete||complete, claim||reap, enqueue-in-open-transaction"
     "||claim (invisible and silent until commit), complete||reap both ways, cancel||complete, and every "
     "stale-token call after a reclaim refused with the row byte-identical (same xmin).",
     []),
    ("7", "Hostile input", FAST.format(file="test_hostile_input.py"),
     "500 hypothesis-generated queue names, dedup keys, priorities and payloads (10,000 in `make soak`): quotes, "
     "`%`, `$$`, `;`, `--`, backslashes, NUL, control and right-to-left characters, lone surrogates, 0-1,000-byte "
     "strings, NaN, JSON nested up to 100,000 levels and over 1 MiB: each is stored and comes back exactly through "
     "the Python client, or is rejected with the documented SQLSTATE and writes nothing; a canary table stays empty.",
     ["examples", "outcome_stored", "canary_rows"]),
    ("8", "Privileges and shadows", FAST.format(file="test_privileges_and_shadows.py"),
     "has_function_privilege for every function in q x producer/worker/admin/PUBLIC equals the README's matrix; "
     "no role but the owner touches a table, sequence or column, or creates in q; every SECURITY DEFINER function "
     "pins `search_path = pg_catalog, pg_temp`; a session that plants hundreds of public/pg_temp shadows "
     "(functions like `now`, `gen_random_uuid`, `jsonb_build_object`, operators, types, tables) gets results "
     "identical to a clean database and runs none of them; a worker cannot complete, fail, heartbeat, release "
     "or cancel another worker's job.",
     ["functions", "shadows_planted", "canary_rows", "differences", "mismatches"]),
    ("9", "Database hygiene", FAST.format(file="test_database_hygiene.py") + "; 1.8 million rows: "
     + SOAK.format(name="history"),
     "No worker session holds a transaction longer than a statement while jobs sleep 1.2-2 s; the plan q.claim "
     "really runs (auto_explain with ANALYZE, BUFFERS) reads job_claim_idx with no sort and no sequential scan on "
     "a 50,000-job backlog and touches fewer than 100 buffers with 200,000 (fast) and 1,800,000 (soak) finished "
     "jobs in history; lock_timeout and statement_timeout set on the worker's role are honoured and retried.",
     ["longest_worker_transaction_s", "buffers_claim_1", "buffers_claim_10", "longest_lock_wait_s", "lost"]),
    ("10", "Migrations under load", SOAK.format(name="migrations"),
     "`alembic upgrade` from the previous revision, then down and up again, while 4 workers run jobs enqueued at "
     "200/s: no lost job, no error a worker does not retry, no lock held or waited for 2 s or more. A call in "
     "flight as a migration commits can fail once against the changed tables (UndefinedColumn after the downgrade "
     "drops a column): the worker sends that round again, counted apart.",
     ["jobs", "migrations_under_load", "lost", "worker_errors_not_retried", "schema_changed_errors_retried",
      "longest_lock_held_s", "longest_lock_wait_s"]),
    ("11", "Flow control under chaos", FAST.format(file="test_flow_control_chaos.py") + " (15 s; 60 s in "
     "`make soak`)",
     "8 worker processes on five limited queues (a global concurrency of 5, 2 per key over 12 keys, ordered keys, "
     "40 starts a second, and a per-key rate of 4 starts a second with 3 at a time), a random worker SIGKILLed or its "
     "session terminated every 0.3-1.2 s; an independent sampler (every 10 ms, its own connection) and a ledger the "
     "handlers write: running jobs never above a limit, ordered keys never overlap and run in order, no rate window "
     "over its bound (judged on the server's clock, every start stamped by a trigger), no job lost.",
     ["jobs", "kills", "terminated_sessions", "peak_global", "limit_global", "peak_key", "limit_key", "violations",
      "lost"]),
    ("12", "Schedules fire once per slot", SOAK.format(name="schedules") + " (3 minutes); 40 s (not in "
     "`make test`): `.venv/bin/python -m pytest tests/reliability/test_schedule_chaos.py`",
     "6 worker processes (an App declaring 200 `every 1 second` schedules and 6 `* * * * *` in six time zones, "
     "synced at each start), a random worker SIGKILLed and replaced every 10 s, PostgreSQL restarted once with "
     "`pg_ctl restart -m immediate`: the unique ledger (q_data.schedule_fire), the jobs (q_data.job_history) and the "
     "handlers' own record agree; 0 double fires, 0 missed slots.",
     ["fires", "kills", "pg_restarts", "double_fires_jobs", "double_fires_seen", "missed_slots", "start_late_p99_s"]),
    ("13", "Failover to a streaming standby", FAST.format(file="test_failover.py") + " (synchronous, 600 jobs); "
     + SOAK.format(name="failover") + " (3,000 jobs, synchronous then asynchronous)",
     "A primary and a physical standby made by the suite (`pg_basebackup`), 8 worker processes and 4 producers on "
     "one multi-host conninfo (`target_session_attrs=read-write`), the standby promoted and the old primary stopped "
     "with `-m immediate` under load. Synchronous standby (`synchronous_standby_names`, `synchronous_commit = on`): "
     "0 committed enqueues lost, every job finished, no job run twice (the workers adopt their claims on the new "
     "primary), workers resume within 10 s. A schedule firing every second (`catch_up => 'all'`, fired by the "
     "workers' reaper turns) has exactly one job per slot on the new primary, none missed, in both modes. "
     "Asynchronous: the committed enqueues the new primary lacks are counted.",
     ["lost", "duplicate_executions", "resume_s", "schedule_double_fires", "schedule_missed_slots", "sync_lost",
      "sync_duplicate_executions", "sync_resume_s", "sync_schedule_double_fires", "sync_schedule_missed_slots",
      "async_lost", "async_duplicate_executions", "async_schedule_double_fires", "async_schedule_missed_slots"]),
    ("14", "Workflows under chaos", FAST.format(file="test_workflows_chaos.py") + " (small graphs, 20 s); the "
     "full size (`PGQ_CHAOS_FULL=1`) in `make soak`",
     "8 worker processes claim under their session keys while the test SIGKILLs one or terminates its backend every "
     "0.1-0.6 s, over the workloads pg-boss used for its flows: a fan-out of 10,000 children, a fan-in of 10,000 "
     "parents to one child, a 20-layer DAG (50 wide, 3 parents each), a chain of 10,000 and a batch of 1,000 with a "
     "callback, all in one `q.enqueue_flow`. A ledger written by the handlers (the completing transaction writes "
     "`done`): every job completed exactly once, 0 lost, 0 stuck, no child started before a parent's completion, "
     "re-runs only for claims whose worker died, the batch callback exactly once.",
     ["jobs", "edges", "kills", "terminated_backends", "lost", "stuck", "duplicate_completions",
      "children_started_early", "batch_callbacks"]),
]


def _fmt(value: Any) -> str:
    return f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else str(value)


def _machine() -> str:
    try:
        pg = subprocess.run(["pg_config", "--version"], capture_output=True, text=True).stdout.strip()
    except OSError:
        pg = "PostgreSQL"
    cores = subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip()
    return f"{cores} cores, {platform.system()} {platform.release()}, Python {platform.python_version()}, {pg}"


SECURITY = [
    "## Security: what a session can do to pgq (revision 0003)",
    "",
    "Each attack below worked against revision 0002 (issue 9: an adversarial review and an independent "
    "Node.js client); the test named beside it reproduces it and passes since 0003. \"Any login role\" means a "
    "role with no pgq rights at all: PostgreSQL lets every role connect (by default), take advisory locks, "
    "read pg_locks and pg_stat_activity, LISTEN and NOTIFY.",
    "",
    "| attack | who can mount it | 0002 | since 0003 | test |",
    "|---|---|---|---|---|",
    "| hold the reaper's turn, advisory lock (1885827328, 0) | any login role | every `q.reap()` returned 0: no "
    "crashed worker's job came back, on any queue | the turn is a row lock on `q_data.reaper_turn` (owner-only "
    "table) | "
    "`pgtap/reap/ignores_advisory_locks_any_role_can_take.sql`, `tests/worker/test_hostile_sessions.py` |",
    "| hold the migration lock, advisory lock (1885827328, -1) | any login role | `alembic upgrade` waited forever | "
    "`LOCK TABLE q.alembic_version` (owner or superuser only) | `tests/worker/test_hostile_sessions.py` |",
    "| hold the next session keys (visible in pg_locks) | any login role | `q.session_key()` and a new worker's "
    "first claim hung | keys are rows of `q_data.session`; nothing to wait on | "
    "`pgtap/session_key/never_waits_on_locks_another_session_holds.sql`, `tests/worker/test_hostile_sessions.py` |",
    "| LISTEN, stay idle in a transaction, fill the NOTIFY queue | any login role | every due enqueue, "
    "`fail(retry_in => 0)` and `release` failed at COMMIT (54000) | no hint while the queue is "
    "`pgq.notify_queue_limit` (0.5) full; workers poll | `tests/core/test_notify.py::"
    "test_a_filling_notify_queue_skips_the_hint_and_commits_enqueue_fail_and_release`, "
    "`tests/worker/test_hostile_sessions.py` |",
    "| `pg_advisory_unlock_all()`, `RESET ALL`, `DISCARD ALL` on the claiming connection | the application itself "
    "(a pool's reset hook) | the live job was reaped and run twice | liveness is pid + backend_start in "
    "`pg_stat_activity` | `pgtap/session_key/survives_reset_all_and_advisory_unlock_all.sql`, "
    "`tests/core/test_session_liveness.py` |",
    "| a pool closes the idle connection that claimed | any pooled client (Node `pg.Pool`, PgBouncer) | the "
    "running job was reaped and run twice | claims without `owner` are lease-only | "
    "`tests/core/test_session_liveness.py::"
    "test_a_default_claim_from_a_pooled_connection_that_is_closed_is_left_to_its_lease` |",
    "| fail one job ~1,000 times with long errors | `pgq_worker` (or a buggy handler) | `q.fail`, then every "
    "`q.reap()` raised 54000 | 4,096 characters per entry, newest 20 entries | "
    "`pgtap/fail/error_history_is_bounded.sql` |",
    "| enqueue a payload read (compressed) from a table column | `pgq_producer` | a 209,715,212-byte job was "
    "accepted | the cap counts decompressed bytes | `pgtap/enqueue/payload_cap_counts_decompressed_bytes.sql` |",
    "| 101 nested empty arrays | `pgq_producer` | accepted, undecodable by strict clients | refused (54000) | "
    "`pgtap/enqueue/depth_cap_counts_nested_containers.sql` |",
    "| `run_at => 'infinity'` / `'-infinity'` | `pgq_producer` | a dedup key squatted forever; `q.stats()` "
    "failed (22008) | refused (22023) | `pgtap/enqueue/rejects_non_finite_run_at.sql` |",
    "| create 100,000 queue names | `pgq_producer` | every `q.reap()` took 1.1 s | reap visits only queues "
    "with scheduled jobs or history | `pgtap/reap/cost_does_not_grow_with_idle_queues.sql` |",
    "| heartbeat random tokens to find cancelled ids | `pgq_worker` | `'cancelled'` for any token | `'lost'` "
    "unless the token is the cancelled claim's | "
    "`pgtap/heartbeat/says_lost_for_any_token_but_the_cancelled_claim.sql` |",
    "| a bug in a SECURITY DEFINER function | whoever can call it | it ran as the installing superuser | it runs "
    "as `pgq_owner` (NOLOGIN, owns only pgq's objects) | `pgtap/privileges/pgq_owner_owns_every_object.sql` |",
    "",
    "What is left: a role with `pgq_worker` can still call `q.reap()` inside a transaction it keeps open and hold "
    "the turn (other reapers skip it until it ends), or claim with another worker's key (that claim then lives "
    "as long as the other worker, and its lease still ends it). Other applications' own NOTIFY still fail when "
    "the queue is full; pgq's do not. Without `pg_read_all_stats` for `pgq_owner` liveness compares the pid "
    "alone (a re-used pid reads as alive: the lease decides).",
    "",
    'Since revision 0008 `q.reap()` deletes idle queues. An enqueue holds a *shared* advisory try-lock '
    '(class 1885827329, one of 16 buckets of the queue name) from before it reads the queue row until it '
    'commits, and the reaper deletes only when it gets that bucket *exclusively* and the row `FOR '
    'UPDATE`, both without waiting; when the bucket is taken (or under REPEATABLE READ) the enqueue locks'
    ' the row `FOR KEY SHARE` instead. Any login role can take those advisory locks: holding all 16 makes'
    ' every enqueue take the row lock (slower, never blocked) and keeps idle names from being deleted, '
    'nothing more '
    '(`tests/core/test_idle_queues.py::test_a_role_squatting_the_advisory_locks_slows_nothing_down_to_a_wait_and_only_keeps_names`).',
    "",
    '`pgq_viewer` reads every payload and error text; exporters get `pgq_monitor` (counts, names, limits,'
    " health), and `q.health()` shows `pgq_viewer`/`pgq_monitor` another role's session only as a pid and"
    ' a severity (`pgtap/privileges/monitor_reads_counts_not_payloads.sql`, '
    '`tests/core/test_idle_queues.py::test_health_shows_a_monitor_another_roles_session_as_a_pid_and_a_severity_only`).',
    "",
    "",    "## What pgq's own roles can do to its tables (revision 0008)",
    '',
    'Each of these worked against revision 0007; the test beside it reproduces it and passes now.',
    '',
    '| attack | who can mount it | before | now | test |',
    '|---|---|---|---|---|',
    '| `create rule r as on insert to q.job do nothing` (or `CREATE TRIGGER`) while another session holds'
    ' a read | any role with USAGE on schema q: `pgq_viewer`, `pgq_producer`, `pgq_worker` | PostgreSQL '
    'queued the lock before checking ownership: every claim and enqueue waited behind it (at 0007 one '
    "viewer's `CREATE RULE` held them all for its whole 3 s statement timeout) | every table is in schema"
    ' `q_data`, on which no pgq role has USAGE: 42501 at name resolution, no lock requested | '
    '`pgtap/privileges/no_role_can_queue_a_lock_on_a_table.sql`, '
    '`tests/reliability/test_ddl_lock_queue.py` |',
    "| an admin session with `pgq.schedule_now = '2099-01-01'` calls `q.reap()` | `pgq_admin` | every due"
    " schedule's next slot moved to 2099 for good | the test clock is off unless the database allows it "
    '(`q.allow_test_clock`) | `pgtap/schedule/the_test_clock_is_off_unless_the_database_allows_it.sql` |',
    '| a worker sets `pgq.schedule_now` | `pgq_worker` | its reaps fired no schedule, silently | the '
    'setting is ignored with a warning; the real clock fires | '
    '`pgtap/schedule/the_test_clock_is_for_admins_only.sql` |',
    "| `q.schedule(..., '0 0 29 2 */7')` | `pgq_admin` | accepted; fired in 2032, then never again, "
    'without a word | refused (22023): its days are up to 40 years apart | '
    '`pgtap/schedule/a_cron_that_stops_firing_is_refused.sql` |',
    '| a schedule payload at the size cap | `pgq_admin` | its jobs were over the cap (the added '
    '`schedule`/`slot` keys) | the cap counts the added keys (54000) | '
    '`pgtap/schedule/the_payload_cap_counts_the_added_keys.sql` |',
    "| `q.delete_queue(q)` while a producer's enqueue into `q` has not committed | `pgq_admin` with any "
    "producer | the queue went at once; the job committed pointing at no queue: never claimable, in no "
    "stats | the delete waits for enqueues in flight into the name (2 s at most, then 55P03) and then "
    "sees their jobs (55000) | `tests/core/test_delete_queue_race.py` |",
    "| an open transaction holding a queue's row (an admin's configure, a worker's claim on a full "
    'limited queue) | `pgq_admin`, `pgq_worker` | `q.pause`, `q.configure` and the other admin calls '
    'waited without limit | they wait at most 2 s, then 55P03 naming the oldest holders | '
    '`tests/core/test_admin_lock_timeout.py` |',
    '',
    "## What one job or one notification can do to a worker (issue 21, the worker's side)",
    '',
    "Each of these worked against revision 0007's worker; the test beside it reproduces it (it failed on "
    'the old code) and passes now.',
    '',
    '| attack | who can mount it | before | now | test |',
    '|---|---|---|---|---|',
    '| enqueue `{"n": 1e4300}` (stored as a 4,301-digit integer; Python refuses more than 4,300 digits) |'
    " `pgq_producer` | the claim's answer raised after the claim committed: the batch stayed claimed "
    'until its lease ran out, each reclaim charged every job a crash, ordinary jobs went dead without '
    'running | each payload decoded on its own; only that job fails, invalid and not retryable | '
    '`tests/worker/test_worker_poison_payload.py`, `tests/core/test_client_hostile_jobs.py` |',
    "| a handler's exception message with a NUL or a lone surrogate | whoever's data reaches a handler's "
    'exception (binary data, C-library messages, `surrogateescape` bytes) | psycopg refused the round; it'
    ' was retried forever with every other outcome and release in it; jobs left running after the worker '
    'stopped | error text cleaned on every path (`\\x00`, `\\udcXX`) | '
    '`tests/worker/test_worker_hostile_exceptions.py`, `tests/core/test_client_hostile_jobs.py` |',
    "| an exception whose `__str__` raises | a handler's (or a library's) exception class | the handler "
    'thread died; after `concurrency` such jobs the worker ran nothing | recorded by its type name; the '
    'handler slot goes on | `tests/worker/test_worker_hostile_exceptions.py` |',
    "| `NOTIFY pgq, '<queue>'` in a loop | any login role | one claim per notification (11,584 claims in "
    '5 s) | at most one empty claim per queue per 0.1 s slice | '
    '`tests/worker/test_worker_notify_debounce.py`, `tests/unit/test_claim_hints.py` |',
    '',
    'What is left: a claim that a flow-control limit cut short starts no quiet slice (the NOTIFY of the '
    "next freed slot must claim at once, and pgq's own and a spoofed notification look the same), so "
    'spoofed notifications of a queue whose limit is full still cost one (refused) claim each.',
    '',
    'Not an attack but the same kind of false alarm: a heartbeat that ran just after a round completed '
    'its job reported the job lost (`job_lost`, `pgq_worker_jobs_lost_total`); now the round that carries'
    " a finished job's outcome decides (`tests/unit/test_ledger.py`, "
    '`tests/worker/test_worker_heartbeat_race.py`).',
    "",
]

# The figures of the run that wrote RELIABILITY.md, beside it: tests/unit/test_reports_are_generated.py
# renders them again and fails when RELIABILITY.md says anything else (an edit by hand, or a change of
# this script without a new run).
FIGURES = "tests/reliability/soak/last_run.json"


def write(path: Path, rows: list[dict[str, Any]], seconds: float, failed: list[str]) -> None:
    """RELIABILITY.md at path, and the run's figures in FIGURES (under path's folder)."""
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=path.parent, capture_output=True,
                            text=True).stdout.strip()
    run = {"rows": rows, "seconds": seconds, "failed": failed, "stamp": time.strftime("%Y-%m-%d %H:%M"),
           "commit": commit, "machine": _machine()}
    path.write_text(render(run))
    (path.parent / FIGURES).write_text(json.dumps(run, indent=1) + "\n")


def render(run: dict[str, Any]) -> str:
    """The text of RELIABILITY.md for one run's figures (write's run dict): a pure function of them."""
    rows, seconds, failed, commit = run["rows"], run["seconds"], run["failed"], run["commit"]
    by_suite: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        by_suite.setdefault(row["suite"], []).append(row)
    out = [
        "# Reliability",
        "",
        "<!-- Written by `make soak` (tests/reliability/soak/report.py) from the figures of its run. "
        "Do not edit by hand: re-run it. -->",
        "",
        f"**The promise.** {PROMISE}",
        "",
        "Each suite below proves part of it against a real PostgreSQL with real worker processes "
        "(`pgq_client.Worker`). Executions are counted outside pgq's own bookkeeping: the job body writes "
        "`rel.execution` in its own transaction (a `done` row is the job's effect), and a row trigger on "
        "`q_data.job` deletes writes `rel.terminal` (a job leaves `q_data.job` exactly when it reaches a terminal "
        "state). *Lost* = a committed enqueue with no terminal record and not in `q_data.job`; *duplicate "
        "executions* = `done` rows beyond the first per job; *duplicate terminal writes* = terminal records "
        "beyond the first per job.",
        "",
        f"**Last run:** {run['stamp']} at commit `{commit}`, {seconds / 60:.1f} min "
        f"(`make soak`: the fast suites with their long variants, then the long suites), on {run['machine']}. "
        + ("**Result: every suite passed.**" if not failed else "**Result: FAILED: " + "; ".join(failed) + "**"),
        "",
        "| # | suite | how to run | last run |",
        "|---|---|---|---|",
    ]
    for suite, title, command, _, keys in SUITES:
        cases = by_suite.get(suite, [])
        shown = []
        for key in keys:
            values = [c[key] for c in cases if key in c]
            if values:
                shown.append(f"{key.replace('_', ' ')} {', '.join(_fmt(v) for v in values)}")
        if suite == "6" and cases:
            shown.append(f"{len(cases)} interleavings passed")
        status = "not run" if not cases else "; ".join(shown) or "passed"
        out.append(f"| {suite} | {title} | {command} | {status} |")
    out += ["", "## Suites", ""]
    for suite, title, command, checks, _ in SUITES:
        out += [f"### {suite}. {title}", "", f"Run: {command}.", "", checks, ""]
        cases = by_suite.get(suite, [])
        if not cases:
            out += ["_Not run in the last soak._", ""]
            continue
        for case in cases:
            figures = {k: v for k, v in case.items() if k not in ("suite", "case", "at")}
            out.append(f"- **{case['case']}** ({case['at']}): "
                       + ", ".join(f"{k.replace('_', ' ')} {_fmt(v)}" for k, v in figures.items()))
        out.append("")
    out += [
        "## Boundaries",
        "",
        "- Instant reclaim rests on session evidence: the owner key's row in `q_data.session` (pid and backend_start, "
        "checked against `pg_stat_activity`), which only pgq's functions write. Claims made without "
        "`owner => q.session_key()` are lease-only.",
        "- Behind PgBouncer in transaction mode there is no session evidence (`owner => 0`): a killed worker's "
        "jobs come back when their lease runs out, not within 2 s.",
        "- A job that was running when its worker died runs again (at-least-once): suite 2 counts those "
        "duplicate executions and attributes them; only the current claim's result is recorded, so terminal "
        "writes stay exactly one per job. A server restart or failover re-runs nothing whose worker reconnects "
        "within the restart grace (`q.restart_grace()`, 30 s, at most the lease; revision 0009): suite 3.",
        "",
    ]
    out += SECURITY
    return "\n".join(out)
