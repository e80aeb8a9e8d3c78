-- The Node benchmark's "SKIP LOCKED, my 60 lines" queue (design.md#the-node-benchmark): table, index and the
-- statement-level NOTIFY trigger, verbatim.
create table jobs (
  id bigint generated always as identity primary key,
  queue text not null,
  payload jsonb not null,
  run_at timestamptz not null default now(),
  attempts int not null default 0
);
create index jobs_fetch_idx on jobs (queue, run_at, id);

create function jobs_notify() returns trigger language plpgsql as $$
begin perform pg_notify('jobs', ''); return null; end $$;
create trigger jobs_notify after insert on jobs
  for each statement execute function jobs_notify();
