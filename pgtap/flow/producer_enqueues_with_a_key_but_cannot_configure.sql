-- Privileges as before: a producer enqueues with a concurrency key; setting
-- limits is for the admin only.
begin;
select plan(2);

select q.configure('pk', key_concurrency => 1) \g /dev/null
set local role pgq_producer;
select q.enqueue('pk', '{}', concurrency_key => 'tenant-42') as id \gset
reset role;
select is((select concurrency_key from q_data.job where id = :id), 'tenant-42', 'a producer enqueues with a key');
select throws_ok($$ set local role pgq_worker; select q.configure('pk', concurrency => 5) $$,
  '42501', null, 'a worker cannot configure limits');

select * from finish();
rollback;
