-- The one-CPU sweep's table and partial index, verbatim (design.md#the-one-cpu-sweep).
create table jobs (
  id          bigint generated always as identity primary key,
  payload     jsonb       not null default '{}',
  status      text        not null default 'pending',
  run_at      timestamptz not null default now(),
  locked_at   timestamptz,
  finished_at timestamptz
);
create index jobs_pending on jobs (run_at, id) where status = 'pending';
