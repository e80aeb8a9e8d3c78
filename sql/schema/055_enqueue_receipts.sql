-- Receipts of q.enqueue_many calls made with an idempotency_key (0003): a
-- producer whose COMMIT reply was lost (connection dropped, server restarted)
-- retries the call with the same key and gets the same ids back instead of
-- a second copy of every job. Kept 24 hours, then deleted by q.reap.
create table q_data.enqueue_receipt (
  queue_id    integer     not null,
  key         text        not null,
  ids         bigint[]    not null,
  created_at  timestamptz not null default clock_timestamp(),
  constraint enqueue_receipt_pkey primary key (queue_id, key)
);

comment on table q_data.enqueue_receipt is
  'q.enqueue_many(idempotency_key => ...): the ids a call returned, so a retry of that call within 24 hours returns them again. q.reap deletes older receipts.';

-- q.reap's purge reads the oldest receipts first.
create index enqueue_receipt_created_idx on q_data.enqueue_receipt (created_at);

revoke all on q_data.enqueue_receipt from public;
