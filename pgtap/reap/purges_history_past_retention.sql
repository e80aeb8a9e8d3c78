-- reap deletes history rows older than their queue's retention, and only
-- those. Retention 0 means at once; the default is 7 days ("8 days ago" is
-- simulated by moving finished_at back).
begin;
select plan(4);

select q.configure('brief', retention => '0') \g /dev/null
select q.enqueue('brief', '{}') as brief_id \gset
select q.enqueue('lasting', '{}') as recent_id \gset
select q.enqueue('lasting', '{}') as old_id \gset
select q.cancel(:brief_id) \g /dev/null
select q.cancel(:recent_id) \g /dev/null
select q.cancel(:old_id) \g /dev/null
update q_data.job_history set finished_at = now() - interval '8 days' where id = :old_id;
select is((select count(*)::integer from q_data.job_history), 3, '(three cancelled jobs in history)');

select q.reap() \g /dev/null
select is((select count(*)::integer from q_data.job_history where id = :brief_id), 0, 'retention 0: the row is purged on the next reap');
select is((select count(*)::integer from q_data.job_history where id = :old_id), 0, 'default 7 days: a row finished 8 days ago is purged');
select is((select count(*)::integer from q_data.job_history where id = :recent_id), 1, 'default 7 days: a recent row is kept');

select * from finish();
rollback;
