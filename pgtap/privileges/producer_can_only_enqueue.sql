-- Acting as pgq_producer: enqueue and enqueue_many work, nothing else does.
begin;
select plan(8);

set local role pgq_producer;
select q.enqueue('priv', '{"n": 1}') as job_id \gset
select count(*) as many from q.enqueue_many('priv', '[1, 2, 3]') \gset
reset role;

select is((select payload from q_data.job where id = :job_id), '{"n": 1}'::jsonb, 'a producer can enqueue');
select is(:many::integer, 3, 'a producer can enqueue_many');

select throws_ok($$ set local role pgq_producer; select * from q.claim('priv') $$,
  '42501', null, 'a producer cannot claim');
select throws_ok(format($$ set local role pgq_producer; select q.complete(%s, gen_random_uuid()) $$, :job_id),
  '42501', null, 'a producer cannot complete');
select throws_ok($$ set local role pgq_producer; select q.reap() $$,
  '42501', null, 'a producer cannot reap');
select throws_ok($$ set local role pgq_producer; select q.session_key() $$,
  '42501', null, 'a producer cannot take a session key');
select throws_ok($$ set local role pgq_producer; select * from q_data.job $$,
  '42501', null, 'a producer cannot select from q_data.job');
select throws_ok($$ set local role pgq_producer; insert into q_data.queue (name) values ('x') $$,
  '42501', null, 'a producer cannot insert into q_data.queue directly');

select * from finish();
rollback;
