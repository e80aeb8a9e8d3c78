-- q.stats counts jobs that wait for parents (pending) and jobs on hold after
-- a parent failed (on_hold) per queue (revision 0010), and lists a queue
-- whose only jobs are pending; 0009 counted them nowhere and left such a
-- queue out.
begin;
select plan(4);

select q.enqueue('stats_parents', '{}') as p1 \gset
select q.enqueue('stats_parents', '{}') as p2 \gset
select q.enqueue_after('stats_children', '{}', array[:p1]) from generate_series(1, 3) \g /dev/null
select q.enqueue_after('stats_children', '{}', array[:p2], on_parent_failure => 'hold') \g /dev/null

select results_eq(
  $$ select waiting::integer, pending::integer, on_hold::integer, pending_exact, on_hold_exact
       from q.stats() where queue = 'stats_children' $$,
  $$ values (0, 4, 0, true, true) $$,
  'a queue of pending children is listed, with its pending count');

select q.cancel(:p2) \g /dev/null
select results_eq(
  $$ select pending::integer, on_hold::integer from q.stats() where queue = 'stats_children' $$,
  $$ values (3, 1) $$,
  'a parent cancelled under the hold policy: one child on hold');

select q.complete(c.id, c.token) from q.claim('stats_parents') c \g /dev/null
select results_eq(
  $$ select waiting::integer, pending::integer, on_hold::integer from q.stats() where queue = 'stats_children' $$,
  $$ values (3, 0, 1) $$,
  'the other parent completed: its children are waiting');

select q.enqueue('stats_parents', '{}') as p3 \gset
select q.enqueue_after('stats_children', '{}', array[:p3]) from generate_series(1, 3) \g /dev/null
select results_eq(
  $$ select pending_exact, on_hold_exact from q.stats(exact_up_to => 1) where queue = 'stats_children' $$,
  $$ values (false, true) $$,
  'above exact_up_to the pending count is an estimate, flagged as such');

select * from finish();
rollback;
