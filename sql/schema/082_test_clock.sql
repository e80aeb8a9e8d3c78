-- The switch for the scheduler's test clock (q.schedule_now). Off by
-- default: then pgq.schedule_now is ignored whoever sets it, so no session
-- of a production database can move a schedule's next slot. (Up to 0007 any
-- admin session with pgq.schedule_now = '2099-01-01' that called q.reap moved
-- every due schedule's next slot to 2099 for good, and a worker that set it
-- made every reap of its session fire nothing, silently.) A test database
-- turns it on with q.allow_test_clock(true).
create table q_data.test_clock (
  id       boolean primary key default true,
  allowed  boolean not null default false,
  constraint one_row check (id)
);

insert into q_data.test_clock default values;

comment on table q_data.test_clock is
  'One row: whether this database honours pgq.schedule_now (the scheduler''s test clock). Off by default; q.allow_test_clock sets it. For test databases only.';

revoke all on q_data.test_clock from public;
