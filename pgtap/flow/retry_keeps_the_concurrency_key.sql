-- q.retry puts a dead keyed job back under its key's limit: history keeps
-- concurrency_key, and the retried job is admitted or held like a new one.
begin;
select plan(2);

select (q.configure('rk', key_concurrency => 1)).key_concurrency as k \gset
select q.enqueue('rk', '{"i": 1}', concurrency_key => 'k') as first_id \gset
select id, token from q.claim('rk') \gset
select q.fail(:id, :'token', 'x', retryable => false) \g /dev/null
select q.enqueue('rk', '{"i": 2}', concurrency_key => 'k') \g /dev/null
select is((select concurrency_key from q_data.job_history where id = :first_id), 'k', 'history keeps the key');
select q.retry(:first_id) \g /dev/null
select is((select state::text from q_data.job where id = :first_id), 'h', 'the retried job is held behind the key''s running one');

select * from finish();
rollback;
