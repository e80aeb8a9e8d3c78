-- Regression (design.md#short-claims-explain-themselves): a short claim on a key-rate queue says
-- key_rate and a positive pgq.claim_retry_in as long as jobs are put off,
-- however many other scheduled jobs (delays, retries) come before the first
-- put-off one. Until 0009 the claim looked at the queue's first 100 scheduled
-- jobs only: with 150 delayed jobs ahead it said nothing (empty), and a
-- client fell back to its poll interval.
begin;
select plan(5);

select q.configure('kr', key_concurrency => 10, key_rate => 1, key_per => '1 hour') \g /dev/null
select q.enqueue('kr', jsonb_build_object('later', g), run_at => now() + interval '10 minutes')
  from generate_series(1, 150) g \g /dev/null
select q.enqueue('kr', jsonb_build_object('a', g), concurrency_key => 'a') from generate_series(1, 3) g \g /dev/null

select is((select count(*)::integer from q.claim('kr', 5)), 1, 'the key starts one job and puts off the other two');
select is((select count(*)::integer from q.claim('kr', 5)), 0, 'the next claim gets nothing');
select is(current_setting('pgq.claim_blocked', true), 'key_rate', 'and says the key rate stopped it');
select ok(nullif(current_setting('pgq.claim_retry_in', true), '')::numeric between 3590 and 3600,
  'and that the first put-off job is due in about an hour (not empty)');
select ok((select retry_in between interval '59 minutes' and interval '60 minutes'
             from q.claim_explained('kr', 5)),
  'q.claim_explained says the same in its row');

select * from finish();
rollback;
