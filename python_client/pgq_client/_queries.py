"""Every SQL statement pgq's Python side sends, in one place.

The thin client (:mod:`pgq_client`, :mod:`pgq_client.aio`), the SQLAlchemy
helpers, the worker's round trips and its start-up checks all take their SQL
from here: one statement per call, named arguments (psycopg's ``%s``
placeholders; ``:name`` for SQLAlchemy), nothing built from input. To find
what a Python call sends, look up its name here; to find who sends a SQL
function, grep this module's name.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

# -- the thin client: one statement per function ---------------------------------------------

ENQUEUE = (
    "select q.enqueue(queue => %s, payload => %s, run_at => %s, priority => %s,"
    " max_attempts => %s, dedup_key => %s)"
)
# With a concurrency key (revision 0005, flow control): a separate statement, so a call without one
# still runs on an older database.
ENQUEUE_FLOW = (
    "select q.enqueue(queue => %s, payload => %s, run_at => %s, priority => %s,"
    " max_attempts => %s, dedup_key => %s, concurrency_key => %s)"
)
ENQUEUE_MANY = (
    "select id from q.enqueue_many(queue => %s, payloads => %s, run_at => %s,"
    " priority => %s, max_attempts => %s) as id"
)
# With keys (revision 0003): a separate statement, so a call without them still runs on 0002.
ENQUEUE_MANY_KEYED = (
    "select id from q.enqueue_many(queue => %s, payloads => %s, run_at => %s,"
    " priority => %s, max_attempts => %s, dedup_keys => %s::text[], idempotency_key => %s) as id"
)
# With concurrency keys (revision 0005): every argument.
ENQUEUE_MANY_FLOW = (
    "select id from q.enqueue_many(queue => %s, payloads => %s, run_at => %s,"
    " priority => %s, max_attempts => %s, dedup_keys => %s::text[], idempotency_key => %s,"
    " concurrency_key => %s, concurrency_keys => %s::text[]) as id"
)

# The forms of a call whose later revisions added arguments, oldest first, each with the optional
# arguments it sends after the required ones. A call sends the oldest form that has every optional
# argument it was given (oldest_form), so a new client still runs against an older database as long
# as it does not use what that database lacks.
Forms = tuple[tuple[str, tuple[str, ...]], ...]
ENQUEUE_FORMS: Forms = ((ENQUEUE, ()), (ENQUEUE_FLOW, ("concurrency_key",)))
ENQUEUE_MANY_FORMS: Forms = (
    (ENQUEUE_MANY, ()),
    (ENQUEUE_MANY_KEYED, ("dedup_keys", "idempotency_key")),
    (ENQUEUE_MANY_FLOW, ("dedup_keys", "idempotency_key", "concurrency_key", "concurrency_keys")),
)


def oldest_form(forms: Forms, optional: Mapping[str, object]) -> tuple[str, tuple[str, ...]]:
    """The oldest statement of ``forms`` that sends every optional argument not None, and its names."""
    given = {name for name, value in optional.items() if value is not None}
    for statement, names in forms:
        if given <= set(names):
            return statement, names
    raise ValueError(f"no form of this call takes {sorted(given)}")  # the newest form takes them all


CLAIM = "select * from q.claim(queue => %s, n => %s, lease => %s, owner => %s)"
# One statement for any client: the jobs with why the claim came back short
# (design.md#short-claims-explain-themselves).
CLAIM_EXPLAINED = "select * from q.claim_explained(queue => %s, n => %s, lease => %s, owner => %s)"
COMPLETE = "select q.complete(id => %s, token => %s)"
# Arrays of ids and tokens go in binary (%b): the server reads the uuids and bigints from bytes
# instead of parsing their text (array_in with uuid_in was 3 % of the server's CPU draining batches
# of 50), and the client packs them without formatting each UUID (design.md#ids-and-tokens-in-binary).
COMPLETE_MANY = "select id from q.complete_many(ids => %b, tokens => %b) as id"
# With a result (revision 0009): sent only when there is one, so the plain call runs on older revisions.
COMPLETE_RESULT = "select q.complete(id => %s, token => %s, result => %s)"
COMPLETE_MANY_RESULTS = "select id from q.complete_many(ids => %b, tokens => %b, results => %s::jsonb[]) as id"
FAIL = "select q.fail(id => %s, token => %s, error => %s, retry_in => %s, retryable => %s)"
FAIL_MANY = "select * from q.fail_many(ids => %b, tokens => %b, errors => %s, retry_in => %s)"
HEARTBEAT = "select q.heartbeat(id => %s, token => %s, lease => %s)"
HEARTBEAT_MANY = "select * from q.heartbeat_many(ids => %b, tokens => %b, lease => %s)"
# With progress (revision 0009): sent only when there is some.
HEARTBEAT_PROGRESS = "select q.heartbeat(id => %s, token => %s, lease => %s, progress => %s)"
HEARTBEAT_MANY_PROGRESS = (
    "select * from q.heartbeat_many(ids => %b, tokens => %b, lease => %s, progress => %s::jsonb[])"
)
# Results (revision 0009): what became of jobs, and awaiting them (NOTIFY pgq_result, payload the id).
RESULT = "select * from q.result(job_id => %s)"
RESULTS = "select * from q.results(ids => %s)"
PARENT_RESULTS = "select * from q.parent_results(id => %s)"
AWAIT_RESULTS = "select * from q.await_results(ids => %s, timeout => %s)"
RESULT_CHANNEL = "pgq_result"
LISTEN_RESULTS = f"listen {RESULT_CHANNEL}"
UNLISTEN_RESULTS = f"unlisten {RESULT_CHANNEL}"
RELEASE = "select q.release(id => %s, token => %s)"
RELEASE_MANY = "select id from q.release_many(ids => %b, tokens => %b) as id"
REAP = "select q.reap(max_jobs => %s)"
# Revision 0009: a reconnected worker moves its running claims under its new liveness key.
ADOPT = "select id from q.adopt(ids => %b, tokens => %b, owner => %s) as id"
SESSION_KEY = "select q.session_key()"
CANCEL = "select q.cancel(id => %s)"
RETRY = "select q.retry(id => %s)"
PAUSE = "select q.pause(queue => %s)"
RESUME = "select q.resume(queue => %s)"
# The columns named, not q_data.queue's every column: a setting added later must not break the record.
# The flow-control columns (revision 0005) and the per-key rate (0007) are read through to_jsonb, so
# the same select runs on an older database (NULL there); the limits are sent only when given
# (CONFIGURE_FORMS).
_CONFIGURED = (
    "select c.name as queue, c.paused, c.lease, c.max_attempts, c.max_crashes, c.backoff_base, c.backoff_max,"
    " c.keep_completed, c.retention, (to_jsonb(c)->>'concurrency')::integer as concurrency,"
    " (to_jsonb(c)->>'key_concurrency')::integer as key_concurrency,"
    " coalesce((to_jsonb(c)->>'ordered')::boolean, false) as ordered,"
    " (to_jsonb(c)->>'rate')::integer as rate, (to_jsonb(c)->>'per')::interval as per,"
    " (to_jsonb(c)->>'key_rate')::integer as key_rate, (to_jsonb(c)->>'key_per')::interval as key_per,"
    " (to_jsonb(c)->>'max_lease')::interval as max_lease,"
    " (to_jsonb(c)->>'keep_results')::interval as keep_results,"
    " (to_jsonb(c)->>'max_result_size')::integer as max_result_size"
)
CONFIGURE = (
    _CONFIGURED
    + " from q.configure(queue => %s, lease => %s, max_attempts => %s, max_crashes => %s, backoff_base => %s,"
    " backoff_max => %s, keep_completed => %s, retention => %s) c"
)
CONFIGURE_FLOW = (
    _CONFIGURED
    + " from q.configure(queue => %s, lease => %s, max_attempts => %s, max_crashes => %s, backoff_base => %s,"
    " backoff_max => %s, keep_completed => %s, retention => %s, concurrency => %s, key_concurrency => %s,"
    " ordered => %s, rate => %s, per => %s, unlimit => %s) c"
)
# With a per-key rate (revision 0007): every argument.
CONFIGURE_KEY_RATE = (
    _CONFIGURED
    + " from q.configure(queue => %s, lease => %s, max_attempts => %s, max_crashes => %s, backoff_base => %s,"
    " backoff_max => %s, keep_completed => %s, retention => %s, concurrency => %s, key_concurrency => %s,"
    " ordered => %s, rate => %s, per => %s, unlimit => %s, key_rate => %s, key_per => %s) c"
)
# With a lease cap (revision 0008): every argument.
CONFIGURE_MAX_LEASE = (
    _CONFIGURED
    + " from q.configure(queue => %s, lease => %s, max_attempts => %s, max_crashes => %s, backoff_base => %s,"
    " backoff_max => %s, keep_completed => %s, retention => %s, concurrency => %s, key_concurrency => %s,"
    " ordered => %s, rate => %s, per => %s, unlimit => %s, key_rate => %s, key_per => %s, max_lease => %s) c"
)
# With results kept per queue (revision 0009): every argument.
CONFIGURE_RESULTS = (
    _CONFIGURED
    + " from q.configure(queue => %s, lease => %s, max_attempts => %s, max_crashes => %s, backoff_base => %s,"
    " backoff_max => %s, keep_completed => %s, retention => %s, concurrency => %s, key_concurrency => %s,"
    " ordered => %s, rate => %s, per => %s, unlimit => %s, key_rate => %s, key_per => %s, max_lease => %s,"
    " keep_results => %s, max_result_size => %s) c"
)
CONFIGURE_FORMS: Forms = (
    (CONFIGURE, ()),
    (CONFIGURE_FLOW, ("concurrency", "key_concurrency", "ordered", "rate", "per", "unlimit")),
    (CONFIGURE_KEY_RATE, ("concurrency", "key_concurrency", "ordered", "rate", "per", "unlimit", "key_rate",
                          "key_per")),
    (CONFIGURE_MAX_LEASE, ("concurrency", "key_concurrency", "ordered", "rate", "per", "unlimit", "key_rate",
                           "key_per", "max_lease")),
    (CONFIGURE_RESULTS, ("concurrency", "key_concurrency", "ordered", "rate", "per", "unlimit", "key_rate",
                         "key_per", "max_lease", "keep_results", "max_result_size")),
)
LIMITS = "select * from q.limits(queue => %s)"
BUSY_KEYS = "select * from q.busy_keys(queue => %s, max_rows => %s)"
STATS = "select * from q.stats(exact_up_to => %s)"
# The exporter's and the dashboard's read: any revision's q.stats (its default bound from 0004 on).
STATS_DEFAULT = "select * from q.stats()"
# A page of active queues (revision 0008): at most max_queues, in name order, after a name.
STATS_PAGE = "select * from q.stats(max_queues => %s, after => %s)"
THROUGHPUT = "select * from q.throughput(since => %s)"
THROUGHPUT_TOTALS = "select * from q.throughput_totals()"
EXPLAIN = "select * from q.explain(id => %s)"
HEALTH = "select * from q.health()"
JOB_PAGE = (
    "select * from q.job_page(queue => %s, state => %s, after => %s, search => %s, page_size => %s,"
    " max_scan => %s)"
)
RETRY_DEAD = "select * from q.retry_dead(queue => %s, error_contains => %s, max_rows => %s)"
CANCEL_JOBS = "select * from q.cancel_jobs(queue => %s, state => %s, payload_contains => %s, max_rows => %s)"
PURGE = "select * from q.purge(queue => %s, max_rows => %s)"
DELETE_QUEUE = "select history_deleted from q.delete_queue(queue => %s)"
JOBS = "select * from q.jobs(queue => %s, state => %s, id => %s, max_rows => %s)"
SCHEDULE = (
    "select * from q.schedule(name => %s, cron => %s, queue => %s, payload => %s, timezone => %s,"
    " priority => %s, max_attempts => %s, catch_up => %s, every => %s)"
)
UNSCHEDULE = "select q.unschedule(name => %s)"
PAUSE_SCHEDULE = "select q.pause_schedule(name => %s)"
RESUME_SCHEDULE = "select q.resume_schedule(name => %s)"
SCHEDULES = "select * from q.schedules(name => %s)"

# -- monitoring: what pgq_client.observe reads for the `pgq metrics` exporter and the dashboard ---------
#
# Rows are read as dicts by column name, so columns a later revision adds
# (q.stats's *_exact) come through without a change here.

# Which of pgq's functions exist in this database and whether this role may call them:
# the exporter and the dashboard show what the installed revision offers.
FEATURES = (
    "select p.proname, bool_or(has_function_privilege(p.oid, 'execute')) as allowed"
    " from pg_catalog.pg_proc p where p.pronamespace = 'q'::regnamespace group by p.proname"
)
# A bound on every monitoring statement (the exporter's and the dashboard's connections).
STATEMENT_TIMEOUT = "select set_config('statement_timeout', %s, false)"

# The NOTIFY channel of the enqueue trigger; the payload is the queue name.
CHANNEL = "pgq"
LISTEN = f"listen {CHANNEL}"
# q.cancel of a running job tells its owner at once (revision 0009): NOTIFY pgq_cancel_<session key>,
# payload the job id. The worker's listener LISTENs on its own key's channel.
CANCEL_CHANNEL_PREFIX = "pgq_cancel_"


def listen_cancels(key: int) -> str:
    """The LISTEN statement for the cancellations of one session key's jobs (an integer: no quoting)."""
    return f"listen {CANCEL_CHANNEL_PREFIX}{int(key)}"

# -- SQLAlchemy (pgq_client.sqlalchemy): the same statements with :name parameters ----------------


def named(statement: str) -> str:
    """``name => %s`` as ``name => :name`` (SQLAlchemy's text()); JSON and array values get a cast."""
    casts = {"payload": "jsonb", "payloads": "jsonb"}

    def one(match: re.Match[str]) -> str:
        name, cast = match.group(1), match.group(2) or casts.get(match.group(1))
        return f"{name} => cast(:{name} as {cast})" if cast else f"{name} => :{name}"

    return re.sub(r"(\w+) => %s(?:::([\w\[\]]+))?", one, statement)


# -- the worker's round trip: the calls above as UNION ALL branches of one statement ------------
#
# One statement costs the client about half the CPU of the same calls in
# pipeline mode, and the server one Parse/Bind/Execute instead of several.
# Every branch returns the same columns, named so the worker reads rows by
# name: kind ('c' completed, 'f' failed, 'r' released, 'j' a claimed job), the
# id, a status (fail branches), then the q.claimed_job columns after id.
# PostgreSQL runs the branches of an Append one after the other, in ROUND_ORDER.

_NO_JOB = (
    "null::text as queue, null::jsonb as payload, null::integer as attempt, null::integer as crashes,"
    " null::integer as priority, null::uuid as token, null::timestamptz as lease_until"
)
ROUND_BRANCHES = {
    "complete": f"select 'c'::text as kind, c.id, null::text as status, {_NO_JOB}"
                " from q.complete_many(ids => %b, tokens => %b) as c(id)",
    # Handlers that returned a value (revision 0009): their results go with the completes.
    "complete_results": f"select 'c'::text as kind, c.id, null::text as status, {_NO_JOB}"
                        " from q.complete_many(ids => %b, tokens => %b, results => %s::jsonb[]) as c(id)",
    "fail": f"select 'f'::text as kind, f.id, f.status, {_NO_JOB}"
            " from q.fail_many(ids => %b, tokens => %b, errors => %s, retry_in => null) f",
    "dead": f"select 'f'::text as kind, d.id,"
            " q.fail(id => d.id, token => d.token, error => d.error, retry_in => null, retryable => false) as status,"
            f" {_NO_JOB}"
            " from unnest(%b::bigint[], %b::uuid[], %s::text[]) as d(id, token, error)",
    "release": f"select 'r'::text as kind, r.id, null::text as status, {_NO_JOB}"
               " from q.release_many(ids => %b, tokens => %b) as r(id)",
    "claim": "select 'j'::text as kind, j.id, null::text as status, j.queue, j.payload, j.attempt, j.crashes,"
             " j.priority, j.token, j.lease_until from q.claim(queue => %s, n => %s, lease => %s, owner => %s) j",
}
# Flow control (design.md#flow-control-without-a-hot-row): after a claim, one row when a limit cut
# it short (kind 'b'; status 'concurrency', or 'rate <seconds until the next rate slot frees>').
# q.claim sets these transaction-local settings, and the Append runs this branch after the claim's.
ROUND_BRANCHES["blocked"] = (
    "select 'b'::text as kind, null::bigint as id,"
    " concat_ws(' ', current_setting('pgq.claim_blocked', true),"
    " nullif(current_setting('pgq.claim_retry_in', true), ''))"
    f" as status, {_NO_JOB} where coalesce(current_setting('pgq.claim_blocked', true), '') <> ''"
)
# Before the claim, when the worker listens: says so to q.claim (pgq.listening, transaction-local),
# so that an empty claim (pgq.wait_when = empty: the worker claims until empty) records that the
# worker waits for the queue (q.note_wait: only then does an enqueue NOTIFY) and a claim a limit cut
# short asks the next freed slot for one (q.flow_want). No rows.
ROUND_BRANCHES["listening"] = (
    f"select 'l'::text as kind, null::bigint as id, null::text as status, {_NO_JOB}"
    " from (select set_config('pgq.listening', 'on', true) as s,"
    " set_config('pgq.wait_when', 'empty', true) as e) l where l.s is null"
)
# Wake-ups on demand (design.md#wake-ups-on-demand): after a listening claim, one row (kind 'w')
# when that claim started its session's wait for the queue (q.claim sets pgq.claim_waiting = 'new'):
# the worker claims once more before it sleeps, so a job committed while the wait began is not left
# for the poll.
ROUND_BRANCHES["waiting"] = (
    f"select 'w'::text as kind, null::bigint as id, null::text as status, {_NO_JOB}"
    " where current_setting('pgq.claim_waiting', true) = 'new'"
)
ROUND_ORDER = ("complete", "complete_results", "fail", "dead", "release", "listening", "claim", "blocked", "waiting")


def round_statement(parts: tuple[str, ...]) -> str:
    """The UNION ALL of the given branches, in :data:`ROUND_ORDER`."""
    return " union all ".join(ROUND_BRANCHES[p] for p in ROUND_ORDER if p in parts)


# -- the worker's own session: clock, liveness, start-up checks ----------------------------------

CLOCK = "select clock_timestamp()"
# A clean stop ends the worker's waits (revision 0009): left behind, each would cost the next
# enqueue into its queue a needless NOTIFY. Not in WORKER_FUNCTIONS: a worker still runs on 0008.
STOP_WAITING = "select q.stop_waiting(%s)"
PING = "select 1"
BACKEND_PID = "select pg_backend_pid()"
# In a transaction of its own that stays open while the liveness connection
# asks for its backend again: behind PgBouncer in transaction mode the
# liveness connection's next transaction then lands on another server
# backend (the held one is taken), so the two pids it saw differ.
BACKEND_PID_HELD = "select pg_backend_pid()"

# The functions a worker calls and whether this role may call them. The cast
# 'q'::regnamespace raises 3F000 when schema q is missing; a missing name
# means pgq is not (fully) installed; false means a missing grant.
WORKER_FUNCTIONS = (
    "claim", "complete_many", "fail", "fail_many", "heartbeat_many", "release_many", "reap", "session_key",
)
CHECK_FUNCTIONS = (
    "select p.proname, bool_or(has_function_privilege(p.oid, 'execute')) as allowed"
    " from pg_catalog.pg_proc p where p.pronamespace = 'q'::regnamespace and p.proname = any(%s)"
    " group by p.proname"
)
CURRENT_USER = "select current_user"

# Dependencies and batches (revision 0009).
ENQUEUE_AFTER = (
    "select q.enqueue_after(queue => %s, payload => %s, after => %s, on_parent_failure => %s, run_at => %s,"
    " priority => %s, max_attempts => %s, concurrency_key => %s, batch => %s)"
)
ENQUEUE_GRAPH = "select ref, id from q.enqueue_flow(jobs => %s)"
CREATE_BATCH = "select q.create_batch(callback_queue => %s, callback_payload => %s, on_dead => %s)"
SEAL_BATCH = "select q.seal_batch(id => %s)"
BATCH = "select * from q.batch(id => %s)"
PARENTS = "select q.parents(id => %s)"
JOB_GRAPH = "select * from q.job_graph(id => %s, max_rows => %s)"
# observe.staleness: is this a standby, how long ago its last replayed commit, WAL received but not replayed.
STALENESS = (
    "select pg_is_in_recovery(),"
    " case when pg_is_in_recovery() then clock_timestamp() - pg_last_xact_replay_timestamp() end,"
    " case when pg_is_in_recovery() then pg_wal_lsn_diff(pg_last_wal_receive_lsn(), pg_last_wal_replay_lsn()) end"
)
UNBLOCK = "select q.unblock(id => %s)"
