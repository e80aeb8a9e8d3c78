-- q.cancel_jobs cancels jobs of one queue by state and payload (jsonb @>),
-- at most max_rows per call, into history as cancelled; a running job's
-- worker then hears 'cancelled' at its heartbeat.
begin;
select plan(9);
\ir ../_helpers.psql

select count(*) from q.enqueue_many('cj', '[{"t": "a"}, {"t": "a"}, {"t": "a"}, {"t": "b"}]') \g /dev/null
select q.enqueue('cj', '{"t": "a"}', run_at => clock_timestamp() + interval '1 hour') \g /dev/null
select id as run_id, token as run_token from q.claim('cj', 1) \gset

select results_eq($$ select cancelled, more from q.cancel_jobs('cj', state => 'waiting', payload_contains => '{"t": "a"}', max_rows => 1) $$,
  $$ values (1, true) $$, 'one waiting "a" job per max_rows 1, and more remain');
select results_eq($$ select cancelled, more from q.cancel_jobs('cj', state => 'waiting', payload_contains => '{"t": "a"}') $$,
  $$ values (1, false) $$, 'the last waiting "a" job (the first was claimed)');
select results_eq($$ select cancelled, more from q.cancel_jobs('cj', state => 'running') $$,
  $$ values (1, false) $$, 'the running job');
select is(q.heartbeat(:run_id, :'run_token'), 'cancelled', 'whose worker hears cancelled at its heartbeat');
select is((select count(*)::integer from q_data.job_history where state = 'cancelled'), 3, 'all three are in history as cancelled');
select results_eq($$ select cancelled, more from q.cancel_jobs('cj') $$, $$ values (2, false) $$,
  'no filter: every live job of the queue (the "b" one and the scheduled one)');

select pg_temp.pgq_state() as before \gset
select throws_ok($$ select * from q.cancel_jobs('cj', state => 'dead') $$, '22023',
  'state must be waiting, scheduled, running or NULL (all three), got ''dead''', 'a finished state: 22023');
select throws_ok($$ select * from q.cancel_jobs('cj', max_rows => 100001) $$, '22023', null, 'max_rows over the bound: 22023');
select is(pg_temp.pgq_state(), :'before', 'refused calls change nothing');

select * from finish();
rollback;
