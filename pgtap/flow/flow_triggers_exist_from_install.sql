-- Flow control's row triggers on q_data.job exist from installation (revision
-- 0008; up to 0007 the first limit made them under a lock on q_data.job):
-- BEFORE INSERT and AFTER DELETE, each with its WHEN clause (revision 0011
-- made one AFTER DELETE trigger of two, shared with dependencies), before any
-- limit, and limits set or removed change nothing. q.flow_arm is gone. No
-- UPDATE trigger (revision 0012: PostgreSQL fetched and locked the old row
-- again for it on every claim; its work is in q.flow_admit and
-- q.flow_free_queue_slot, called by the functions that update jobs).
begin;
select plan(5);

select triggers_are('q_data', 'job',
  array['_100_flow_admit_inserted', '_110_job_ended', '_900_notify_enqueued'],
  'a fresh install has the two row triggers and the enqueue notification');
-- tgtype bits: 1 = row, 2 = before, 4 = insert, 8 = delete, 16 = update.
select results_eq(
  $$ select t.tgname::text collate "default", t.tgtype::integer, t.tgqual is not null, p.proname::text collate "default"
       from pg_trigger t join pg_proc p on p.oid = t.tgfoid
      where t.tgrelid = 'q_data.job'::regclass and t.tgname like '\_1%' order by 1 $$,
  $$ values ('_100_flow_admit_inserted', 7, true, 'tg_job__flow'), ('_110_job_ended', 9, true, 'tg_job__ended') $$,
  'each is a row trigger with a WHEN clause, at its documented time and event');
select hasnt_function('q', 'flow_arm', 'q.flow_arm is gone');
select q.configure('lim', concurrency => 3) \g /dev/null
select q.configure('other', key_concurrency => 2) \g /dev/null
select q.configure('lim', unlimit => '{concurrency}') \g /dev/null
select is((select count(*)::integer from pg_trigger t where t.tgrelid = 'q_data.job'::regclass and t.tgname like '\_1%'), 2,
  'limits set and removed leave the two as they are');
select isnt((select obj_description(t.oid, 'pg_trigger') from pg_trigger t
              where t.tgrelid = 'q_data.job'::regclass and t.tgname = '_110_job_ended'), null, 'with their comments');

select * from finish();
rollback;
