-- q.reap's work does not grow with the number of idle queues. 0002 looped over
-- every q_data.queue row, promoting and purging per queue: 1.1 s per call at
-- 100,000 queue names. (Since 0008 q.forget_idle_queues also looks at up to 100
-- queue rows per call, through the primary key, to delete idle ones: a fixed
-- bound, see pgtap/reap/forgets_idle_queues.sql.) Counted here as rows of
-- q_data.queue read during one reap (this transaction's own statistics), with
-- 20,000 idle queues beside a few busy ones: no timing.
begin;
select plan(4);

insert into q_data.queue (name) select 'idle-' || g from generate_series(1, 20000) g;
select q.enqueue('busy', '{}', run_at => now() + interval '1 hour') as busy_id \gset
update q_data.job set run_at = now() - interval '1 second' where id = :busy_id;  -- scheduled, and due now
select q.enqueue('later', '{}', run_at => now() + interval '1 hour') \g /dev/null
select q.enqueue('done', '{}') as done_id \gset
select q.cancel(:done_id) \g /dev/null
analyze q_data.queue;

create function pg_temp.queue_rows_read() returns bigint language sql as $$
  select pg_stat_get_xact_tuples_returned('q_data.queue'::regclass) + pg_stat_get_xact_tuples_fetched('q_data.queue'::regclass)
$$;
select pg_temp.queue_rows_read() as before \gset
select q.reap() \g /dev/null
select pg_temp.queue_rows_read() as after \gset

select cmp_ok((:after - :before)::bigint, '<', 50::bigint, 'one reap reads a handful of q_data.queue rows, not one per idle queue');
select count(*) from q_data.queue \g /dev/null
select cmp_ok((pg_temp.queue_rows_read() - :after)::bigint, '>=', 20000::bigint, '(the counter does count: a scan of q_data.queue reads every row)');
select is((select count(*)::integer from q_data.job where state = 'w'), 1, 'the due scheduled job was promoted');
select is((select count(*)::integer from q_data.job where state = 's'), 1, 'the later one was not');

select * from finish();
rollback;
