-- Restart without re-runs (revision 0009, design.md#restarts-without-re-runs).
--
-- A claim's liveness key (q_data.session) dies with its backend, and a
-- backend dies with its server: after a restart or a failover every claim
-- looks crashed, although the worker that holds it is alive, still running
-- the handler, and reconnects within a second or two. This row tells q.reap
-- when the server it runs on began serving, so that sessions registered
-- before then (they ended *with the server*) get a grace period
-- (q.restart_grace) in which their worker takes its claims back (q.adopt)
-- before they count as crashed.
--
-- pg_postmaster_start_time() alone would not do: a promoted standby started
-- before the sessions of its old primary registered. So the reaper keeps the
-- postmaster start it last saw, and on a change (a restart, or a promoted
-- standby whose start time differs from the old primary's) sets began_at: the
-- new postmaster start if it is later than the last began_at (a restart),
-- else the moment it noticed (a promotion). See q.server_began.
create table q_data.server_start (
  id                boolean     primary key default true,
  postmaster_start  timestamptz not null,
  began_at          timestamptz not null,
  constraint one_row check (id)
);

insert into q_data.server_start (postmaster_start, began_at)
values (pg_catalog.pg_postmaster_start_time(), pg_catalog.pg_postmaster_start_time());

comment on table q_data.server_start is
  'One row: the postmaster start time q.reap last saw and when this server began serving (restart: its start; promoted standby: when the reaper first noticed). Sessions registered before began_at ended with the server and get q.restart_grace() before their claims count as crashed.';
comment on column q_data.server_start.postmaster_start is
  'pg_postmaster_start_time() of the server q.reap last ran on.';
comment on column q_data.server_start.began_at is
  'When the server q.reap runs on began serving: its postmaster start after a restart, or the first reap after a promotion.';

revoke all on q_data.server_start from public;
