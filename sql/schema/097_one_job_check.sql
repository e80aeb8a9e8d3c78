-- One CHECK constraint on q_data.job instead of seven (revision 0011).
--
-- Why: PostgreSQL reads a table's CHECK constraints from their stored text
-- again for every statement that writes a row (parses each, folds its
-- constants, compiles it), so the fixed cost of every claim, fail, release and
-- every child a finishing parent makes waiting grew with each constraint added
-- (0002 had 3, 0005 5, 0009 7). One constraint with the same seven tests, and
-- the known states as one array constant (nothing left to fold), measured
-- 131 -> 120 µs of server CPU per q.claim(queue, 1) in its own transaction
-- (-8 %; design.md#one-check-constraint-one-trigger-per-event). A violation now names
-- job_row_is_consistent; only pgq's functions write this table, so one means a
-- bug in pgq, and the constraint's comment lists each rule.
alter table q_data.job
  drop constraint state_is_known,
  drop constraint running_job_has_claim,
  drop constraint max_attempts_is_positive,
  drop constraint held_job_has_no_key_slot,
  drop constraint queue_slot_only_while_running,
  drop constraint parents_left_is_not_negative,
  drop constraint pending_job_has_parents,
  add constraint job_row_is_consistent check (
        state = any ('{w,s,r,h,p,o}'::"char"[])
    and (state = 'r') = (token is not null)
    and max_attempts > 0
    and (state <> 'h' or key_slot is null)
    and (queue_slot is null or state = 'r')
    and parents_left >= 0
    and (state <> 'p' or parents_left > 0));

comment on constraint job_row_is_consistent on q_data.job is
  'Every rule a job row keeps, in one constraint (each is parsed again per writing statement): the state is known (w s r h p o); a running job and only a running job has a claim token; max_attempts is positive; a held job has no key slot; a queue slot only while running; parents_left is not negative and a pending job has parents left.';
