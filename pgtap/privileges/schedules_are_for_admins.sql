-- Schedules are administration: pgq_admin may create, list, pause, resume
-- and delete them; workers and producers get 42501; nobody but the owner
-- reads the schedule tables.
begin;
select plan(8);

set local role pgq_admin;
select (q.schedule('priv', '0 3 * * *', 'priv')).name as created \gset
select count(*) as listed from q.schedules() \gset
select q.pause_schedule('priv') and q.resume_schedule('priv') as toggled \gset
select q.unschedule('priv') as removed \gset
reset role;
select is(:'created'::text, 'priv', 'an admin can create a schedule');
select is(:listed::integer, 1, 'an admin can list schedules');
select ok(:'toggled'::boolean, 'an admin can pause and resume one');
select ok(:'removed'::boolean, 'an admin can delete one');

select throws_ok($$ set local role pgq_worker; select q.schedule('w', '* * * * *', 'priv') $$, '42501', null,
  'a worker cannot create schedules');
select throws_ok($$ set local role pgq_producer; select * from q.schedules() $$, '42501', null,
  'a producer cannot list schedules');
select throws_ok($$ set local role pgq_admin; select * from q_data.schedule $$, '42501', null,
  'even an admin cannot read q_data.schedule directly');
select throws_ok($$ set local role pgq_admin; select q.cron_parse('* * * * *') $$, '42501', null,
  'even an admin cannot call an internal function');

select * from finish();
rollback;
