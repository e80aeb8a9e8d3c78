-- q.reap deletes results older than their queue's keep_results, and only
-- those: each queue has its own retention, independent of keep_completed.
begin;
select plan(4);

select q.configure('short', keep_results => '1 hour') \g /dev/null
select q.configure('long', keep_results => '30 days') \g /dev/null

create function pg_temp.done(queue text, result jsonb) returns bigint language plpgsql as $$
declare v_id bigint; v_token uuid;
begin
  perform q.enqueue(queue, '{}');
  select c.id, c.token into v_id, v_token from q.claim(queue) c;
  perform q.complete(v_id, v_token, result);
  return v_id;
end $$;

select pg_temp.done('short', '1') as old_short \gset
select pg_temp.done('short', '2') as new_short \gset
select pg_temp.done('long', '3') as old_long \gset
update q_data.job_result set finished_at = clock_timestamp() - interval '2 days' where id in (:old_short, :old_long);

select q.reap() \g /dev/null
select is((select s.state from q.result(:old_short) s), 'unknown', 'a result past its queue''s keep_results is gone');
select is((select s.result from q.result(:new_short) s), '2'::jsonb, 'a recent one of the same queue stays');
select is((select s.result from q.result(:old_long) s), '3'::jsonb, 'a queue with a longer keep_results keeps its result');

update q_data.job_result set finished_at = clock_timestamp() - interval '31 days' where id = :old_long;
select q.reap() \g /dev/null
select is((select count(*)::integer from q_data.job_result where id = :old_long), 0, 'until it passes that queue''s keep_results');

select * from finish();
rollback;
