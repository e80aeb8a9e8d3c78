-- Observability (design.md#stats-without-a-hot-counter): throughput tallies,
-- estimates for q.stats, and a read-only role for dashboards. Everything here
-- is new; nothing on the claim path reads it.

-- pgq_viewer may look (q.stats, q.throughput, q.explain, q.health, q.job_page,
-- q.jobs) and change nothing: the role for a dashboard's read-only mode or a
-- metrics exporter. pgq_admin is a member, so an admin sees what a viewer sees.
do $$
begin
  if not exists (select from pg_catalog.pg_roles where rolname = 'pgq_viewer') then
    begin
      create role pgq_viewer nologin;
    exception when duplicate_object or unique_violation then
      null;
    end;
  end if;
  if not pg_catalog.pg_has_role('pgq_admin', 'pgq_viewer', 'member') then
    grant pgq_viewer to pgq_admin;
  end if;
end
$$;

grant usage on schema q to pgq_viewer;

-- pgq_viewer reads every payload and every error (q.jobs, q.job_page,
-- q.explain, q.schedules): whatever producers put there (card numbers,
-- passwords) it sees. An exporter needs none of that: pgq_monitor (0008,
-- design.md#a-monitoring-role-without-payloads) may call only q.stats,
-- q.throughput, q.throughput_totals, q.limits and q.health, which return
-- counts, queue names, settings and server health, and q.health names other
-- roles' sessions only to a caller that may see them in pg_stat_activity.
-- pgq_viewer is a member, so a viewer sees what a monitor sees.
do $$
begin
  if not exists (select from pg_catalog.pg_roles where rolname = 'pgq_monitor') then
    begin
      create role pgq_monitor nologin;
    exception when duplicate_object or unique_violation then
      null;
    end;
  end if;
  if not pg_catalog.pg_has_role('pgq_viewer', 'pgq_monitor', 'member') then
    grant pgq_monitor to pgq_viewer;
  end if;
end
$$;

grant usage on schema q to pgq_monitor;

-- Outcomes not yet rolled up: one row per (statement, queue, outcome), written
-- by q.complete, q.complete_many, q.fail and q.finish in the caller's own
-- transaction, so a rolled-back complete counts nothing. Insert-only and
-- without an index: no row is ever updated by two sessions (a counter row per
-- queue would be a lock every complete waits for). q.reap moves the rows into
-- q.throughput about once a second, so the table stays a few pages long.
-- Unlogged: these are statistics; after a crash the last second is lost, and
-- the insert writes no WAL.
create unlogged table q_data.tally (
  queue_id  integer     not null,
  outcome   "char"      not null,
  n         integer     not null,
  at        timestamptz not null default now(),
  constraint outcome_is_known check (outcome in ('c', 'f', 'd')),
  constraint n_is_positive check (n > 0)
) with (
  -- Every row is deleted within a second or so of its insert: vacuum early.
  autovacuum_vacuum_scale_factor = 0.02,
  autovacuum_vacuum_threshold = 1000,
  autovacuum_vacuum_cost_delay = 0
);

comment on table q_data.tally is
  'Outcomes not yet rolled up into q_data.throughput: c = completed, f = failed (will retry), d = dead. Written in the caller''s transaction, moved by q.reap.';

-- Per queue and minute, what finished. Written only by the reaper (one
-- session at a time), read by q.throughput(). Kept for a day.
create table q_data.throughput (
  queue_id   integer     not null,
  minute     timestamptz not null,
  completed  bigint      not null default 0,
  failed     bigint      not null default 0,
  dead       bigint      not null default 0,
  constraint throughput_pkey primary key (queue_id, minute)
);

comment on table q_data.throughput is
  'Per queue and minute: jobs completed, failed attempts that will retry, jobs that went dead. Rolled up from q_data.tally by q.reap; rows older than a day are deleted.';

create index throughput_minute_idx on q_data.throughput (minute);

-- Running totals per queue since `since`, for monotonic counters (Prometheus
-- *_total). Also written only by the reaper.
create table q_data.throughput_total (
  queue_id   integer     primary key,
  completed  bigint      not null default 0,
  failed     bigint      not null default 0,
  dead       bigint      not null default 0,
  since      timestamptz not null default now()
);

comment on table q_data.throughput_total is
  'Per queue: jobs completed, failed attempts that will retry and jobs that went dead since `since` (the first rolled-up outcome). Rolled up from q_data.tally by q.reap.';

-- Joint statistics of queue and state, so that q.stats's estimates (the
-- planner's row counts) know that one queue may be all scheduled and another
-- all waiting. Costs only at ANALYZE time.
create statistics q.job_queue_state_stats (mcv) on queue_id, state from q_data.job;

revoke all on all tables in schema q_data from public;
