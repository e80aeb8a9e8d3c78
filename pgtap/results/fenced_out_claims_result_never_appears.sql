-- A claim that was taken back (its lease ran out, the reaper gave the job to
-- another worker) cannot leave its result behind: its q.complete and
-- q.complete_many are refused whole, and the result read is the current
-- claim's.
begin;
select plan(6);

select q.enqueue('fence', '{}') as job_id \gset
select token as old_token from q.claim('fence', lease => '1 second') \gset
update q_data.job set lease_until = clock_timestamp() - interval '1 second' where id = :job_id;
select is(q.reap(), 1, '(the expired claim is reaped)');
select token as new_token from q.claim('fence') \gset

select is(q.complete(:job_id, :'old_token', '{"from": "old"}'), false, 'the old claim''s complete is refused');
select is(array(select q.complete_many(array[:job_id]::bigint[], array[:'old_token']::uuid[],
                                       array['{"from": "old"}']::jsonb[])), '{}'::bigint[],
  'so is its complete_many');
select is((select count(*)::integer from q_data.job_result r where r.id = :job_id), 0, 'no result was stored');

select is(q.complete(:job_id, :'new_token', '{"from": "new"}'), true, 'the current claim completes');
select is((select s.result from q.result(:job_id) s), '{"from": "new"}'::jsonb, 'the result is the current claim''s');

select * from finish();
rollback;
