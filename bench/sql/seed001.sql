-- The claim-rate article's hand-written queue (design.md#the-claim-rate-article):
-- its table and its partial index, verbatim.
-- Stock autovacuum: no storage parameters (the seed's "stock configuration").
create table jobs (
  id bigserial primary key,
  status text not null default 'queued',
  payload jsonb not null,
  worker_id text,
  created_at timestamptz not null default now(),
  claimed_at timestamptz
);
create index jobs_queue_idx on jobs (created_at) where status = 'queued';
