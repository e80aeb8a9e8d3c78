-- The whole batch is one INSERT: every row carries the same command id
-- (cmin), where a loop of single inserts would give each row its own; the
-- statement-level notify trigger fires once.
begin;
select plan(3);

set local track_functions = 'all';
select count(*) from q.enqueue_many('many', (select jsonb_agg(i) from generate_series(1, 500) i)) \g /dev/null

select is((select count(*)::integer from q_data.job), 500, '(500 jobs enqueued)');
select is((select count(distinct cmin::text)::integer from q_data.job), 1, 'all 500 rows were written by one statement');
select is((select s.calls from pg_stat_xact_user_functions s
            where s.schemaname = 'q' and s.funcname = 'tg_job__notify_enqueued'), 1::bigint,
  'the insert trigger fired once for the batch');

select * from finish();
rollback;
