-- Flow control's row trigger on q_data.job exists from installation (revision
-- 0008; up to 0007 the first limit made them under a lock on q_data.job):
-- BEFORE INSERT, with its WHEN clause, before any limit, and limits set or
-- removed change nothing. q.flow_arm is gone. No UPDATE trigger (revision
-- 0012: PostgreSQL fetched and locked the old row again for it on every
-- claim; its work is in q.flow_admit and q.flow_free_queue_slot, called by the
-- functions that update jobs) and no DELETE trigger (revision 0014: it
-- fetched the old row again on every completion; its work is in q.job_ended,
-- called by the functions that delete jobs).
begin;
select plan(5);

select triggers_are('q_data', 'job',
  array['_100_flow_admit_inserted', '_900_notify_enqueued'],
  'a fresh install has the one row trigger and the enqueue notification');
-- tgtype bits: 1 = row, 2 = before, 4 = insert, 8 = delete, 16 = update.
select results_eq(
  $$ select t.tgname::text collate "default", t.tgtype::integer, t.tgqual is not null, p.proname::text collate "default"
       from pg_trigger t join pg_proc p on p.oid = t.tgfoid
      where t.tgrelid = 'q_data.job'::regclass and t.tgname like '\_1%' order by 1 $$,
  $$ values ('_100_flow_admit_inserted', 7, true, 'tg_job__flow') $$,
  'it is a row trigger with a WHEN clause, at its documented time and event');
select hasnt_function('q', 'flow_arm', 'q.flow_arm is gone');
select q.configure('lim', concurrency => 3) \g /dev/null
select q.configure('other', key_concurrency => 2) \g /dev/null
select q.configure('lim', unlimit => '{concurrency}') \g /dev/null
select is((select count(*)::integer from pg_trigger t where t.tgrelid = 'q_data.job'::regclass and t.tgname like '\_1%'), 1,
  'limits set and removed leave it as it is');
select isnt((select obj_description(t.oid, 'pg_trigger') from pg_trigger t
              where t.tgrelid = 'q_data.job'::regclass and t.tgname = '_100_flow_admit_inserted'), null, 'with its comment');

select * from finish();
rollback;
