-- The calls that took over the UPDATE trigger's work (revision 0012) find
-- their rows by index or by row version, never by reading the jobs of
-- q_data.job one after another: the table has no index on id alone, and a
-- first version of q.release joined the row to itself by id (a sequential
-- scan of every job per release: test 1 failed on it), and q.flow_admit
-- looked waiting jobs up by id (through the queue's waiting jobs; it takes
-- row versions now). Rows read are counted in this transaction's statistics
-- (pg_stat_xact_user_tables: sequential and index fetches), with 10,000
-- waiting jobs in the table.
begin;
select plan(4);

select q.configure('scan_k', concurrency => 5, key_concurrency => 1) \g /dev/null
select q.enqueue_many('scan_bulk', (select jsonb_agg(jsonb_build_object('i', g)) from generate_series(1, 10000) g)) \g /dev/null
analyze q_data.job;

create function pg_temp.job_scans() returns bigint language sql as $$
  select seq_tup_read + coalesce(idx_tup_fetch, 0) from pg_stat_xact_user_tables where relid = 'q_data.job'::regclass $$;

select q.enqueue('scan_k', '{}', concurrency_key => 'a') \g /dev/null
select id, token from q.claim('scan_k') \gset
select pg_temp.job_scans() as before \gset
select q.release(:id, :'token') \g /dev/null
select cmp_ok(pg_temp.job_scans() - :before, '<', 50::bigint, 'q.release reads fewer than 50 job rows');

select id, token from q.claim('scan_k') \gset
select pg_temp.job_scans() as before \gset
select q.release_many(array[:id], array[:'token']::uuid[]) \g /dev/null
select cmp_ok(pg_temp.job_scans() - :before, '<', 50::bigint, 'q.release_many reads fewer than 50 job rows');

select id, token from q.claim('scan_k') \gset
select pg_temp.job_scans() as before \gset
select q.fail(:id, :'token', 'boom', retry_in => interval '0') \g /dev/null
select cmp_ok(pg_temp.job_scans() - :before, '<', 50::bigint, 'q.fail reads fewer than 50 job rows');

-- A keyed scheduled job come due is admitted by its row version.
select q.enqueue('scan_k', '{}', run_at => now() - interval '1 second', concurrency_key => 'b') \g /dev/null
update q_data.job set state = 's' where concurrency_key = 'b';
select pg_temp.job_scans() as before \gset
select q.promote_due((select id from q_data.queue where name = 'scan_k'), 10) \g /dev/null
select cmp_ok(pg_temp.job_scans() - :before, '<', 50::bigint, 'q.promote_due with a keyed job reads fewer than 50 job rows');

select * from finish();
rollback;
