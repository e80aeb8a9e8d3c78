-- Liveness evidence without advisory locks (revision 0003).
--
-- Up to 0002 a session key was an advisory lock (q.lock_space(), key), and a
-- lock the reaper could take proved the claimer gone. Any login role can take
-- advisory locks and read pg_locks, so anyone could hold the keys the next
-- sessions would draw (q.session_key() then waited forever), and the caller's
-- own pg_advisory_unlock_all() (a pool reset hook) or RESET ALL made a live
-- session look dead, so its running job was handed to a second worker.
--
-- Now a key is a row here naming the backend that registered it: its pid and
-- backend_start. The session is alive while pg_stat_activity shows a backend
-- with the same pid AND the same backend_start (a pid alone can be re-used by
-- a later connection). Only pgq's functions write this table; nothing a role
-- without pgq rights can take or hold changes the verdict, and RESET ALL /
-- DISCARD ALL / pg_advisory_unlock_all() leave the row in place.
-- Source of the keys. Wraps after 2^31 keys. (0002 drew its advisory-lock
-- keys from q.session_key_seq; the upgrade drops that one, so a 0002
-- q.session_key() call caught in the middle of the upgrade fails instead of
-- taking a key that q_data.session would never know.)
create sequence q_data.session_seq as integer minvalue 1 cycle;

comment on sequence q_data.session_seq is
  'Source of per-session liveness keys (see q.session_key).';

create table q_data.session (
  key            integer     primary key,
  pid            integer     not null,
  backend_start  timestamptz,
  registered_at  timestamptz not null default clock_timestamp()
);

comment on table q_data.session is
  'Liveness keys (q.session_key): a key is alive while pg_stat_activity shows a backend with this pid and backend_start. Rows of ended sessions are deleted by q.reap.';
comment on column q_data.session.backend_start is
  'pg_stat_activity.backend_start of the registering backend; NULL when pgq''s owner could not read it (then the pid alone is compared, which errs towards "alive": the lease decides).';

-- q.session_key() after RESET ALL finds its own row again by pid.
create index session_pid_idx on q_data.session (pid);

-- The reaper's turn: one row, row-locked FOR UPDATE SKIP LOCKED by q.reap.
-- Until 0002 this was the advisory lock (q.lock_space(), 0), which any login
-- role could hold to stop all reclaiming. Locking this row needs UPDATE on a
-- table in schema q, which only pgq's owner has.
create table q_data.reaper_turn (
  id  boolean primary key default true,
  constraint one_row check (id)
);

insert into q_data.reaper_turn default values;

comment on table q_data.reaper_turn is
  'One row; q.reap locks it FOR UPDATE SKIP LOCKED so one reaper runs at a time and the others return 0 at once.';

revoke all on q_data.session, q_data.reaper_turn from public;
revoke all on sequence q_data.session_seq from public;
