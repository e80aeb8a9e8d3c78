-- The claim index holds only waiting jobs and is already in claim order
-- (queue, priority high first, oldest first): a claim reads its first
-- entries and never sorts or walks past running or finished rows.
begin;
select plan(7);

select has_index('q_data', 'job', 'job_claim_idx', array['queue_id', 'priority', 'run_at'],
  'q_data.job has job_claim_idx on (queue_id, priority, run_at)');
select index_is_type('q_data', 'job', 'job_claim_idx', 'btree', 'job_claim_idx is a btree');
select is((select pg_get_expr(i.indpred, i.indrelid) from pg_index i where i.indexrelid = 'q_data.job_claim_idx'::regclass),
  $$(state = 'w'::"char")$$,
  'job_claim_idx is partial: waiting jobs only');
select matches(pg_get_indexdef('q_data.job_claim_idx'::regclass),
  '\(queue_id, priority DESC, run_at\)',
  'job_claim_idx is ordered priority descending, then run_at ascending');
select is((select i.indisunique from pg_index i where i.indexrelid = 'q_data.job_claim_idx'::regclass), false,
  'job_claim_idx is not unique (equal priorities and times are fine)');
select is((select pg_get_expr(i.indpred, i.indrelid) from pg_index i where i.indexrelid = 'q_data.job_running_idx'::regclass),
  $$(state = 'r'::"char")$$,
  'job_running_idx (the id lookup of complete/fail/heartbeat) holds running jobs only');
-- Every index on the hot table is paid for on every enqueue and claim.
-- (job_pending_idx and job_batch_idx, revision 0009, and job_pending_queue_idx,
-- 0010, are partial: a job that waits for no parent and joins no batch never
-- has an entry, and pays their predicate tests only.)
select indexes_are('q_data', 'job', array['job_claim_idx', 'job_running_idx', 'job_scheduled_idx', 'job_dedup_key_idx', 'job_held_idx', 'job_put_off_idx',
                                          'job_pending_idx', 'job_pending_queue_idx', 'job_batch_idx'],
  'q_data.job has exactly the claim, running, scheduled, dedup, held (flow control), put-off (key rate), pending and batch (dependencies) indexes');

select * from finish();
rollback;
