-- Acting as pgq_admin: the producer and worker calls (through membership)
-- and the admin calls all work; the tables and internals stay closed.
begin;
select plan(11);

select ok(pg_has_role('pgq_admin', 'pgq_producer', 'member'), 'pgq_admin is a member of pgq_producer');
select ok(pg_has_role('pgq_admin', 'pgq_worker', 'member'), 'pgq_admin is a member of pgq_worker');
select ok(not pg_has_role('pgq_worker', 'pgq_admin', 'member')
          and not pg_has_role('pgq_producer', 'pgq_admin', 'member')
          and not pg_has_role('pgq_producer', 'pgq_worker', 'member')
          and not pg_has_role('pgq_worker', 'pgq_producer', 'member'),
  'membership only flows from admin down: producer and worker are not members of anything pgq');

set local role pgq_admin;
select (q.configure('priv', lease => '1 minute')).name is not null as configured \gset
select q.enqueue('priv', '{"n": 1}') as job_id \gset
select id as claimed_id, token as claimed_token from q.claim('priv', 1) \gset
select q.cancel(:claimed_id) as cancelled \gset
select q.retry(:claimed_id) as retried \gset
select q.pause('priv') is null as paused \gset
select waiting as stats_waiting, paused as stats_paused from q.stats() where queue = 'priv' \gset
select q.resume('priv') is null as resumed \gset
reset role;

select ok(:'configured'::boolean, 'an admin can configure');
select is(:claimed_id::bigint, :job_id::bigint, 'an admin can enqueue and claim');
select ok(:'cancelled'::boolean, 'an admin can cancel');
select is(:retried::bigint, :job_id::bigint, 'an admin can retry');
select ok(:'stats_paused'::boolean and :stats_waiting = 1, 'an admin can pause and read stats');
select ok(not (select paused from q_data.queue where name = 'priv'), 'an admin can resume');

select throws_ok($$ set local role pgq_admin; select * from q_data.job $$,
  '42501', null, 'even an admin cannot select from q_data.job');
select throws_ok($$ set local role pgq_admin; select q.finish(null, 'dead', now()) $$,
  '42501', null, 'even an admin cannot call an internal function');

select * from finish();
rollback;
