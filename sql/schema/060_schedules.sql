-- Schedules: cron and interval jobs kept in SQL and fired by q.reap (which
-- every worker already calls about once a second; one at a time does the
-- work). No scheduler daemon: see q.fire_schedules.

-- A 5-field cron expression, parsed once when the schedule is written
-- (q.cron_parse), as sorted sets of the values each field allows.
create type q.cron_spec as (
  minutes        integer[],
  hours          integer[],
  days           integer[],
  months         integer[],
  weekdays       integer[],
  -- The classic cron day rule: when the day-of-month or day-of-week field
  -- starts with '*', a day must match both sets; when both are restricted,
  -- either one is enough.
  days_star      boolean,
  weekdays_star  boolean
);

comment on type q.cron_spec is
  'A parsed cron expression: sorted allowed values per field (weekdays 0-6, Sunday = 0) and whether the day fields start with *.';

-- What q.schedule and q.schedules return.
create type q.schedule_info as (
  name           text,
  queue          text,
  cron           text,
  every          interval,
  timezone       text,
  catch_up       text,
  paused         boolean,
  next_fire_at   timestamptz,
  last_slot      timestamptz,
  last_fired_at  timestamptz,
  last_job_id    bigint,
  payload        jsonb,
  priority       integer,
  max_attempts   integer,
  created_at     timestamptz,
  updated_at     timestamptz
);

comment on type q.schedule_info is
  'A schedule as an admin sees it: next_fire_at is NULL while paused; last_slot is the newest slot fired, last_job_id the job it enqueued.';

create table q_data.schedule (
  id             integer     generated always as identity primary key,
  name           text        not null,
  queue_id       integer     not null references q_data.queue (id),
  cron           text,
  every          interval,
  spec           q.cron_spec,
  timezone       text        not null default 'UTC',
  payload        jsonb       not null default '{}',
  priority       smallint    not null default 0,
  max_attempts   smallint,
  catch_up       text        not null default 'latest',
  paused         boolean     not null default false,
  next_fire_at   timestamptz,
  last_slot      timestamptz,
  last_fired_at  timestamptz,
  last_job_id    bigint,
  created_at     timestamptz not null default now(),
  updated_at     timestamptz not null default now(),
  constraint schedule_name_key unique (name),
  constraint name_is_valid check (char_length(name) between 1 and 128 and name !~ '[[:cntrl:]]'),
  constraint cron_or_every check ((cron is null) <> (every is null)),
  constraint cron_has_spec check ((cron is null) = (spec is null)),
  constraint every_is_whole_seconds check (
    every is null
    or (every >= interval '1 second' and every <= interval '366 days'
        and date_part('month', every) = 0 and date_part('year', every) = 0
        and extract(epoch from every) = trunc(extract(epoch from every)))),
  constraint catch_up_is_known check (catch_up in ('latest', 'all', 'none')),
  constraint payload_is_an_object check (jsonb_typeof(payload) = 'object'),
  constraint max_attempts_is_positive check (max_attempts > 0)
);

comment on table q_data.schedule is
  'Cron and interval schedules. q.reap (through q.fire_schedules) enqueues one job per due slot and advances next_fire_at in the same transaction.';
comment on column q_data.schedule.spec is
  'The parsed cron expression (NULL for an interval schedule).';
comment on column q_data.schedule.every is
  'Interval schedules: slots at whole multiples of this length since 1970-01-01 00:00 UTC (timezone plays no part).';
comment on column q_data.schedule.next_fire_at is
  'The next slot not yet fired; a reap turn reads only rows whose next_fire_at has come (schedule_due_idx). NULL: never fires again.';
comment on column q_data.schedule.catch_up is
  'Slots over a minute late (downtime): latest = fire only the newest of them, and only if no slot is on time; all = fire them (the newest 100); none = skip them.';

-- A reap turn reads the due schedules only: with 10,000 schedules and none
-- due, one index probe.
create index schedule_due_idx on q_data.schedule (next_fire_at) where not paused;

-- The fire ledger: one row per fired slot, (schedule, slot) unique. A slot
-- that was fired can never be fired again, whatever reapers race or crash;
-- rows older than an hour are pruned (next_fire_at only moves forward, so
-- those slots cannot come due again).
create table q_data.schedule_fire (
  schedule_id  integer     not null references q_data.schedule (id) on delete cascade,
  slot         timestamptz not null,
  job_id       bigint      not null,
  fired_at     timestamptz not null,
  constraint schedule_fire_pkey primary key (schedule_id, slot)
);

comment on table q_data.schedule_fire is
  'Fired slots (the exactly-once rule: primary key schedule_id, slot) and the job each enqueued; kept for an hour.';

revoke all on q_data.schedule, q_data.schedule_fire from public;
revoke all on sequence q_data.schedule_id_seq from public;
