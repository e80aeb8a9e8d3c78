-- Acting as pgq_worker: the worker calls work (positive control), the
-- tables and every other call are refused with 42501.
begin;
select plan(13);

select q.enqueue('priv', '{"n": 1}') as job_id \gset

set local role pgq_worker;
select id as claimed_id, token as claimed_token from q.claim('priv', 1) \gset
select q.heartbeat(:claimed_id, :'claimed_token') as heartbeat_status \gset
select q.complete(:claimed_id, :'claimed_token') as completed \gset
select q.reap() as reaped \gset
reset role;

select is(:claimed_id::bigint, :job_id::bigint, 'a worker can claim');
select is(:'heartbeat_status'::text, 'running', 'a worker can heartbeat');
select is(:'completed'::boolean, true, 'a worker can complete');
select is(:reaped, 0, 'a worker can reap');

select throws_ok($$ set local role pgq_worker; select * from q_data.job $$,
  '42501', null, 'a worker cannot select from q_data.job');
select throws_ok($$ set local role pgq_worker; select * from q_data.queue $$,
  '42501', null, 'a worker cannot select from q_data.queue');
select throws_ok($$ set local role pgq_worker; select * from q_data.job_history $$,
  '42501', null, 'a worker cannot select from q_data.job_history');
select throws_ok($$ set local role pgq_worker; update q_data.job set state = 'w' $$,
  '42501', null, 'a worker cannot update q_data.job directly');
select throws_ok(format($$ set local role pgq_worker; select q.cancel(%s) $$, :job_id),
  '42501', null, 'a worker cannot call q.cancel');
select throws_ok($$ set local role pgq_worker; select q.pause('priv') $$,
  '42501', null, 'a worker cannot call q.pause');
select throws_ok($$ set local role pgq_worker; select * from q.stats() $$,
  '42501', null, 'a worker cannot call q.stats');
select throws_ok($$ set local role pgq_worker; select q.enqueue('priv', '{}') $$,
  '42501', null, 'a worker cannot enqueue');
select throws_ok($$ set local role pgq_worker; select q.ensure_queue('priv') $$,
  '42501', null, 'a worker cannot call an internal function');

select * from finish();
rollback;
