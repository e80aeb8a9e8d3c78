-- An ordered key (one at a time) with a rate of 1 per hour: the next job
-- gets the key's slot when the first finishes, is put off for the rest of
-- the hour, then runs; the key's order holds. Cancelling a put-off job
-- passes its key slot on.
begin;
select plan(6);

select q.configure('ko', ordered => true, key_rate => 1, key_per => '1 hour') \g /dev/null
select q.enqueue('ko', jsonb_build_object('i', g), concurrency_key => 'K') from generate_series(1, 4) g \g /dev/null

select c.id, c.token from q.claim('ko', 1) c \gset first_
select is((select count(*)::integer from q.claim('ko', 10)), 0, 'one at a time');
select q.complete(:first_id, :'first_token') \g /dev/null
select is((select count(*)::integer from q.claim('ko', 10)), 0, 'the next job is admitted but its key''s hour is not over');
select is((select payload->>'i' from q_data.job where rate_wait), '2', 'job 2, put off');

update q_data.key_rate_slot set used_at = used_at - interval '1 hour';
update q_data.job set run_at = run_at - interval '1 hour' where rate_wait;
select is((select c.payload->>'i' from q.claim('ko', 10) c), '2', 'an hour later job 2 runs');

-- Job 2 ends, job 3 is admitted and put off; cancelling it admits job 4.
select q.complete(j.id, j.token) from q_data.job j where j.state = 'r' \g /dev/null
select q.claim('ko', 10) \g /dev/null
select q.cancel(id) from q_data.job where rate_wait \g /dev/null
select is((select payload->>'i' from q_data.job where key_slot is not null), '4', 'cancelling the put-off job 3 passes the key slot to job 4');
select is((select count(*)::integer from q_data.job), 1, 'and nothing else is left');

select * from finish();
rollback;
