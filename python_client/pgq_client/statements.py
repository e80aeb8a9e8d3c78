"""The SQL each client call sends: one statement, named arguments, nothing else.

Shared by the sync functions (``pgq_client``) and the async ones
(``pgq_client.aio``), so both speak exactly the same SQL.
"""

from __future__ import annotations

ENQUEUE = (
    "select q.enqueue(queue => %s, payload => %s, run_at => %s, priority => %s,"
    " max_attempts => %s, dedup_key => %s)"
)
ENQUEUE_MANY = (
    "select id from q.enqueue_many(queue => %s, payloads => %s, run_at => %s,"
    " priority => %s, max_attempts => %s) as id"
)
CLAIM = "select * from q.claim(queue => %s, n => %s, lease => %s, owner => %s)"
COMPLETE = "select q.complete(id => %s, token => %s)"
COMPLETE_MANY = "select id from q.complete_many(ids => %s, tokens => %s) as id"
FAIL = "select q.fail(id => %s, token => %s, error => %s, retry_in => %s, retryable => %s)"
FAIL_MANY = "select * from q.fail_many(ids => %s, tokens => %s, errors => %s, retry_in => %s)"
HEARTBEAT = "select q.heartbeat(id => %s, token => %s, lease => %s)"
HEARTBEAT_MANY = "select * from q.heartbeat_many(ids => %s, tokens => %s, lease => %s)"
RELEASE = "select q.release(id => %s, token => %s)"
RELEASE_MANY = "select id from q.release_many(ids => %s, tokens => %s) as id"
REAP = "select q.reap(max_jobs => %s)"
SESSION_KEY = "select q.session_key()"
CANCEL = "select q.cancel(id => %s)"
RETRY = "select q.retry(id => %s)"
PAUSE = "select q.pause(queue => %s)"
RESUME = "select q.resume(queue => %s)"
STATS = "select * from q.stats()"
JOBS = "select * from q.jobs(queue => %s, state => %s, id => %s, max_rows => %s)"
LISTEN = "listen pgq"

# The NOTIFY channel of the enqueue trigger; the payload is the queue name.
CHANNEL = "pgq"
