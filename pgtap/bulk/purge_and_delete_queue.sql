-- q.purge deletes a queue's waiting and scheduled jobs (no history; running
-- ones stay), bounded; q.delete_queue removes a queue with no live job,
-- with its history and throughput rows, and refuses one that has jobs.
begin;
select plan(11);
\ir ../_helpers.psql

select count(*) from q.enqueue_many('flood', '[1, 2, 3, 4, 5]') \g /dev/null
select q.enqueue('flood', '{}', run_at => clock_timestamp() + interval '1 day') \g /dev/null
select id as run_id, token as run_token from q.claim('flood', 1) \gset

select results_eq($$ select purged, more from q.purge('flood', max_rows => 3) $$, $$ values (3, true) $$,
  'max_rows bounds a purge; more says jobs remain');
select results_eq($$ select purged, more from q.purge('flood') $$, $$ values (2, false) $$,
  'the rest, scheduled included');
select is((select count(*)::integer from q_data.job_history), 0, 'a purge keeps no history');
select is((select state::text from q_data.job where id = :run_id), 'r', 'the running job is still running');

select throws_ok($$ select * from q.delete_queue('flood') $$, '55000',
  'queue ''flood'' still has waiting, scheduled or running jobs', 'a queue with a live job is not deleted (55000)');
select ok(q.complete(:run_id, :'run_token'), '(the running job completes)');
select q.reap() \g /dev/null
select q.enqueue('typo-queue', '{}') as typo_job \gset
select q.enqueue('typo-queue', '{}', max_attempts => 1) \g /dev/null
select q.cancel(:typo_job) \g /dev/null
select q.fail(id, token, 'x') from q.claim('typo-queue') \g /dev/null

select results_eq($$ select history_deleted from q.delete_queue('flood') $$, $$ values (0) $$,
  'an empty queue is deleted');
select results_eq($$ select history_deleted from q.delete_queue('typo-queue') $$, $$ values (2) $$,
  'a queue made by a typo goes with its history (a cancelled and a dead job)');
select is((select count(*)::integer from q_data.queue where name in ('flood', 'typo-queue'))
          + (select count(*)::integer from q_data.throughput_total) + (select count(*)::integer from q_data.tally), 0,
  'no queue row, throughput total or tally row is left');

select pg_temp.pgq_state() as before \gset
select throws_ok($$ select * from q.delete_queue('flood') $$, 'P0002', 'queue ''flood'' does not exist', 'deleting it twice: P0002');
select throws_ok($$ select * from q.purge('flood', max_rows => null) $$, 'P0002', null,
  'purge of an unknown queue: P0002 (checked before the bound)');

select * from finish();
rollback;
