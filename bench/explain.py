"""The closing note: for every missed target, why (from this run's diagnostics) and what would fix it."""

from __future__ import annotations

from .model import Section
from .stats import median


def _per_call(diag: Section | None, label: str) -> float | None:
    """Microseconds per call of a diagnostics row, or None when the row is missing."""
    if diag is None or label not in diag.data.get("tps", {}):
        return None
    tps = median(diag.data["tps"][label])
    return 1e6 / tps if tps else None


def _us(v: float | None) -> str:
    return "n/a" if v is None else f"{v:.0f} µs"


def closing(sections: list[Section]) -> str:
    by_key = {s.key: s for s in sections}
    diag = by_key.get("diag")
    missed = {s.key for s in sections for t in s.targets if t.holds is False}
    missed_names = {t.name for s in sections for t in s.targets if t.holds is False}
    if not missed:
        return "Every target measured in this run holds."
    d = {
        "raw_insert": _per_call(diag, "raw INSERT, seed 004's table + NOTIFY trigger"),
        "ins_trigger": _per_call(diag, "INSERT into q_data.job, pgq's notify trigger on"),
        "ins_quiet": _per_call(diag, "INSERT into q_data.job, pgq.notify = off"),
        "enqueue": _per_call(diag, "q.enqueue(queue, payload)"),
        "enqueue_quiet": _per_call(diag, "q.enqueue, pgq.notify = off"),
        "raw_claim": _per_call(diag, "raw claim (seed 001)"),
        "claim_inline": _per_call(diag, "q.claim's UPDATE written inline"),
        "claim": _per_call(diag, "q.claim('bench', 1)"),
    }
    out = ["Targets missed in this run, and where the time goes (section 11 has the per-call costs):", ""]
    if "claim_sweep" in missed:
        out.append(
            f"- **pgbench claims and cycles.** Per call without the flush wait, `q.claim` costs "
            f"{_us(d['claim'])} against {_us(d['raw_claim'])} for seed 001's UPDATE, and the same UPDATE written "
            f"inline costs {_us(d['claim_inline'])}: "
            + ("the plpgsql wrapper is not where the time goes, the statement is"
               if (d["claim_inline"] or 0) >= 0.95 * (d["claim"] or 0)
               else "part of the gap is the plpgsql wrapper, the rest the statement")
            + " (it writes token, lease, owner and attempt, checks three CHECK constraints and four partial "
            "index predicates where the raw table has two indexes, and returns the job, payload included, where "
            "seed 001's script returns nothing). Tried: dropping the CHECK constraints (within noise, about 2% "
            "at 8 clients, so they stay), a cached generic plan and `ctid = any(array(...))` instead of a join "
            "(in place). A cycle adds `q.complete`: `q.check_claim`, a DELETE found through `job_running_idx` "
            "and a `q_data.queue` lookup for keep_completed. Batches: revision 0002 made `q.complete_many` probe "
            "`job_running_idx` once per id; before it, statistics taken while no job ran let the planner "
            "hash-join the ids against a full scan of that index, and the batch ratio fell from 0.77 at 1 client "
            "to 0.29 at 16. Re-measure any SQL change with this harness."
        )
    if "enqueue" in missed:
        out.append(
            f"- **Enqueue.** A raw INSERT with seed 004's trigger costs {_us(d['raw_insert'])}; an INSERT into "
            f"q_data.job with pgq's trigger {_us(d['ins_trigger'])}, and still {_us(d['ins_quiet'])} with "
            "`pgq.notify = off`, because the statement trigger declares a transition table (`referencing new "
            "table`), so every INSERT materialises it and enters plpgsql even when it sends nothing; "
            f"`q.enqueue` costs {_us(d['enqueue'])} ({_us(d['enqueue_quiet'])} with notify off): its argument "
            "checks and the queue lookup come on top of the INSERT. Proposed: let "
            "`q.enqueue`/`q.enqueue_many` call `pg_notify('pgq', queue)` themselves (they know the queue and "
            "whether the job is due) and drop the transition-table trigger, or keep a trigger without a "
            "transition table."
        )
    if any(n.startswith("Python drain") for n in missed_names):
        out.append(
            "- **Python drain vs seed 004.** Seed 004's worker deletes its batch inside a transaction that stays "
            "open while the handlers run: one statement and one commit per batch, and each job is written once. "
            "pgq's loop here (`complete_and_claim`) also needs one round trip and one commit per batch, but "
            "each job is written twice, claimed (an UPDATE that commits at once, so no transaction stays open "
            "and a crashed worker's jobs come back through the reaper) and completed (a DELETE): at batch 50, "
            "where round trips no longer dominate, that second write per job is the gap."
        )
    if any(n.startswith("pgq Worker") for n in missed_names):
        out.append(
            "- **Worker vs the best peer.** With no-op handlers the Worker's ceiling is its Python per-job work on "
            "a machine whose 2 cores also run the server: a claim-loop thread, a hand-off to a handler thread, "
            "and a ledger that batches completions. The best peer batches too (pgqueuer: one dequeue of "
            "`batch_size` jobs and buffered status updates), so a 3x margin needs fewer Python steps per job "
            "(e.g. run no-op-fast handlers inline in the claim loop, complete in larger pipelined batches)."
        )
    if "pickup" in missed:
        out.append(
            "- **Idle pickup.** The figure includes the producer's enqueue, the NOTIFY delivery, the Worker's "
            "listener thread handing the wake-up to its claim loop, the claim round trip and the hand-off to a "
            "handler thread; on 2 busy cores each thread switch can cost a scheduler tick."
        )
    if "storage" in missed:
        out.append(
            "- **Bytes per waiting job.** q_data.job has 14 columns, so a row with NULLs carries a 2-byte null bitmap "
            "and its header rounds up to 32 bytes; with 8 columns or fewer it would be 24, about 179 bytes per "
            "job here. Getting there means folding the claim and retry columns (token, owner, lease, crashes, "
            "max_attempts, errors, dedup_key) into composite or jsonb values that every claim, heartbeat and "
            "complete would build and take apart; we kept the claim path fast instead. The rest: the claim "
            "index entry (queue, priority, run_at: 28 bytes with its line pointer, deduplication off) and "
            "page fill, unvacuumed."
        )
    sustained = by_key.get("sustained")
    if "sustained" in missed and sustained is not None:
        runs = sustained.data.get("autovacuums", {})
        out.append(
            "- **Sustained minute.** Every claim leaves a dead entry at the head of the claim index until a "
            "vacuum removes it, so throughput falls between autovacuum runs; how flat the minute stays depends "
            "on how often the launcher wakes (autovacuum_naptime, the server-wide half of pgq's tuning in "
            "`sql/server_settings.sql`) and on how quickly a vacuum of the backlog finishes on 2 busy cores "
            "(autovacuum runs: " + ", ".join(f"{k}: {v}" for k, v in runs.items()) + ")."
        )
    if any("ahead of pgmq" in n or "ahead of pg-boss" in n or "ahead of BullMQ" in n or "of BullMQ on Redis" in n
           for n in missed_names):
        out.append(
            "- **Seed 004's contenders and pgmq.** pgmq's loop writes each message twice like pgq's (read updates "
            "vt, delete removes the row) but its read writes three narrow columns of a table with two indexes and "
            "no partial predicates, and its SQL functions are plain plpgsql without SET clauses; pgq's claim also "
            "writes the token, lease, owner and attempt and moves the row between two partial indexes. The claim "
            "profile (`make bench-profile`) splits q.claim's time: most of the extra is the function wrapper "
            "(security definer with two SET clauses), not the statement. Redis acknowledges before any disk "
            "write; PostgreSQL here waits for every commit's flush."
        )
    if "scale: q.reap() under 100 ms at every size (bounded)" in missed_names:
        out.append(
            "- **q.reap with many queues.** After the lost claims, q.reap loops over every queue and runs "
            "q.promote_due and a history DELETE for each: two statements per queue per call, so 10,000 idle "
            "queues cost hundreds of milliseconds every second per worker fleet. Proposed: one set-based "
            "promotion over job_scheduled_idx (only queues that have due scheduled jobs) and one history DELETE "
            "over job_history_finished_idx joined to the queues' retention, instead of a loop."
        )
    if "scale: q.stats() under 100 ms at every backlog (bounded)" in missed_names:
        out.append("- **q.stats at scale.** It counts every row of the hot table (one pass, grouped by queue), so "
                   "its time grows with the backlog; issue 13's work replaces it.")
    if any(n.startswith("scale: claim") for n in missed_names):
        out.append("- **Claims vs backlog.** On this run's shared machine the points were taken minutes apart under "
                   "a load that moved between 3 and 10; a larger backlog also means a larger claim index and heap "
                   "to keep cached (shared_buffers 512MB holds the 1M backlog, not the 10M one). Re-measure on a "
                   "quiet machine before reading a trend into it.")
    if any(n.startswith("sustained, stock server") for n in missed_names):
        out.append("- **Sustained, stock server.** The diagnosis columns show why: between two autovacuum runs "
                   "(a minute apart with the stock naptime) every claim walks the dead entries earlier claims "
                   "left at the head of job_claim_idx (tuples read per index scan grows into the thousands), so "
                   "pickup p99 climbs until a vacuum runs. Candidates to measure beside the current design: a "
                   "HOT-friendly claim (the claim profile has one), or a worker-side `VACUUM q_data.job` when the "
                   "dead-entry count crosses a threshold (it needs the table owner's rights).")
    for key, text in (
        ("history", "- **History.** Claims slowed with finished jobs retained; q_data.job_history is a separate "
                    "table, so this points at the server (cache or I/O), not the claim path."),
        ("killed", "- **Killed worker.** Recovery waits for the reaper's turn (about once a second) and for "
                   "the server to notice the dead connection."),
    ):
        if key in missed:
            out.append(text)
    return "\n".join(out)
