-- Completed jobs, failed attempts that retry and jobs that went dead are
-- counted per queue and minute, from q.complete, q.complete_many, q.fail,
-- q.fail_many and the reaper's crash budget; q.reap rolls the tally up into
-- buckets and totals without changing the figures.
begin;
select plan(8);

select q.configure('tp', max_crashes => 1) \g /dev/null
select count(*) from q.enqueue_many('tp', '[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]') \g /dev/null
select count(*) from q.enqueue_many('other', '[1, 2]') \g /dev/null

select q.complete(id, token) from q.claim('tp', 1) \g /dev/null
with c as (select * from q.claim('tp', 3))
select count(*) from q.complete_many((select array_agg(id) from c), (select array_agg(token) from c)) \g /dev/null
select q.fail(id, token, 'try again') from q.claim('tp', 1) \g /dev/null
with c as (select * from q.claim('tp', 2))
select count(*) from q.fail_many((select array_agg(id) from c), (select array_agg(token) from c),
                                 array['a', 'b']) \g /dev/null
select q.fail(id, token, 'give up', retryable => false) from q.claim('tp', 1) \g /dev/null
-- A lease that ran out with max_crashes 1: dead by the reaper.
select id as lost_id from q.claim('tp', 1, owner => 0) \gset
update q_data.job set lease_until = now() - interval '1 second' where id = :lost_id;
select q.complete(id, token) from q.claim('other', 1) \g /dev/null

select results_eq(
  $$ select queue, completed::integer, failed::integer, dead::integer from q.throughput_totals() order by queue $$,
  $$ values ('other', 1, 0, 0), ('tp', 4, 3, 1) $$,
  'before any reap: 4 completed (complete + complete_many), 3 failed attempts to retry (fail + fail_many), 1 dead');
select results_eq(
  $$ select queue, minute, completed::integer, failed::integer, dead::integer from q.throughput() order by queue $$,
  $$ values ('other', date_trunc('minute', now()), 1, 0, 0), ('tp', date_trunc('minute', now()), 4, 3, 1) $$,
  'the same figures in the current minute''s bucket');

select q.reap() \g /dev/null
select is((select count(*)::integer from q_data.tally), 0, 'q.reap moved every tally row');
select results_eq(
  $$ select queue, completed::integer, failed::integer, dead::integer from q.throughput_totals() order by queue $$,
  $$ values ('other', 1, 0, 0), ('tp', 4, 3, 2) $$,
  'after the reap: the same totals, plus the job the reaper found dead (crash budget spent)');
select results_eq(
  $$ select queue, completed::integer, failed::integer, dead::integer from q.throughput() order by queue $$,
  $$ values ('other', 1, 0, 0), ('tp', 4, 3, 2) $$,
  'and the same buckets, read from q_data.throughput now');

select q.complete(id, token) from q.claim('tp', 1) \g /dev/null
select results_eq(
  $$ select completed::integer from q.throughput_totals() where queue = 'tp' $$,
  $$ values (5) $$, 'rolled-up and pending outcomes add up');

update q_data.throughput set minute = minute - interval '2 hours';
select is((select count(*)::integer from q.throughput(since => interval '1 hour') where queue = 'other'), 0,
  'since leaves out older minutes');
select is((select count(*)::integer from q.throughput(since => interval '3 hours') where queue = 'other'), 1,
  'a longer since includes them');

select * from finish();
rollback;
