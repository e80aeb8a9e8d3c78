-- NOTIFY is delivered only at commit, so a rolled-back test cannot see it
-- (pytest does). What it can see: the trigger runs once per INSERT statement,
-- and with SET pgq.notify = off it does not ask q.notify_queues to send
-- anything. Function call counts of this transaction come from
-- pg_stat_xact_user_functions with track_functions = all.
begin;
select plan(4);

set local track_functions = 'all';
create function pg_temp.calls(fn text) returns bigint language sql as $$
  select coalesce((select s.calls from pg_stat_xact_user_functions s
                    where s.schemaname = 'q' and s.funcname = fn), 0)
$$;

select count(*) from q.enqueue_many('notify', '[1, 2, 3, 4, 5]') \g /dev/null
select is(pg_temp.calls('tg_job__notify_enqueued'), 1::bigint, 'five jobs in one enqueue_many fire the trigger once');
select is(pg_temp.calls('notify_queues'), 1::bigint, '... which asks for one notification');

set local pgq.notify = off;
select q.enqueue('notify', '{}') \g /dev/null
select count(*) from q.enqueue_many('notify', '[1, 2]') \g /dev/null
select is(pg_temp.calls('notify_queues'), 1::bigint, 'with pgq.notify = off the trigger asks for no notification');

set local pgq.notify = on;
select q.enqueue('notify', '{}') \g /dev/null
select is(pg_temp.calls('notify_queues'), 2::bigint, 'with pgq.notify back on it asks again');

select * from finish();
rollback;
