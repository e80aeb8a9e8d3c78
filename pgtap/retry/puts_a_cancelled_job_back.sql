-- A cancelled job can be retried too.
begin;
select plan(2);

select q.enqueue('again', '{}') as job_id \gset
select q.cancel(:job_id) \g /dev/null

select is(q.retry(:job_id), :job_id::bigint, 'a cancelled job is retried under its id');
select is((select state::text from q_data.job where id = :job_id), 'w', 'it is waiting again');

select * from finish();
rollback;
