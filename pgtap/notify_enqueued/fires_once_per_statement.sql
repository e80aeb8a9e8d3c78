-- NOTIFY is delivered only at commit, so a rolled-back test cannot see it
-- (pytest does: tests/core/test_notify.py). What it can see: the trigger
-- runs once per INSERT statement, not once per row, and it is a
-- statement-level AFTER INSERT trigger with a transition table. Function call
-- counts of this transaction come from pg_stat_xact_user_functions with
-- track_functions = all.
begin;
select plan(4);

set local track_functions = 'all';
create function pg_temp.calls(fn text) returns bigint language sql as $$
  select coalesce((select s.calls from pg_stat_xact_user_functions s
                    where s.schemaname = 'q' and s.funcname = fn), 0)
$$;

select count(*) from q.enqueue_many('notify', '[1, 2, 3, 4, 5]') \g /dev/null
select is(pg_temp.calls('tg_job__notify_enqueued'), 1::bigint, 'five jobs in one enqueue_many fire the trigger once');

select q.enqueue('notify', '{}') \g /dev/null
select q.enqueue('notify_other', '{}') \g /dev/null
select is(pg_temp.calls('tg_job__notify_enqueued'), 3::bigint, 'each further enqueue statement fires it once more');

set local pgq.notify = off;
select q.enqueue('notify', '{}') \g /dev/null
select is(pg_temp.calls('tg_job__notify_enqueued'), 4::bigint, 'with pgq.notify = off it still fires (and returns at once)');

select ok(
  (select t.tgtype & 1 = 0 and t.tgnewtable = 'inserted'
     from pg_catalog.pg_trigger t
    where t.tgrelid = 'q_data.job'::regclass and t.tgname = '_900_notify_enqueued'),
  'it is a statement-level trigger with the transition table "inserted"');

select * from finish();
rollback;
