-- key_rate 2 per 1 hour: a claim starts at most 2 jobs of each key; the
-- rest of a key's admitted jobs are put off (scheduled, rate_wait), never
-- failed and never counted as an attempt; jobs of other keys and jobs
-- without a key are not limited by it.
begin;
select plan(9);

select q.configure('kr', key_concurrency => 10, key_rate => 2, key_per => '1 hour') \g /dev/null
select q.enqueue('kr', jsonb_build_object('a', g), concurrency_key => 'A') from generate_series(1, 5) g \g /dev/null
select q.enqueue('kr', jsonb_build_object('b', g), concurrency_key => 'B') from generate_series(1, 3) g \g /dev/null
select q.enqueue('kr', jsonb_build_object('free', g)) from generate_series(1, 4) g \g /dev/null

select is((select count(*)::integer from q.claim('kr', 100)), 8, 'one claim: 2 of A, 2 of B and the 4 without a key');
select is(current_setting('pgq.claim_blocked', true), 'key_rate', 'a claim the key rates cut short says key_rate');
select ok(current_setting('pgq.claim_retry_in', true)::float8 between 3500 and 3600,
  'pgq.claim_retry_in says when the keys'' oldest starts leave the window (about an hour)');
select results_eq(
  $$ select concurrency_key, count(*)::integer from q_data.job where state = 'r' and concurrency_key is not null group by 1 order by 1 $$,
  $$ values ('A', 2), ('B', 2) $$,
  'never more than key_rate starts per key in the window');
select results_eq(
  $$ select concurrency_key, count(*)::integer from q_data.job where state = 's' and rate_wait group by 1 order by 1 $$,
  $$ values ('A', 3), ('B', 1) $$,
  'the other admitted jobs are put off');
select is((select count(*)::integer from q_data.job where state = 's' and (attempt <> 0 or errors is not null or key_slot is null)), 0,
  'put off: no attempt counted, no error, the key slot kept');
select ok((select bool_and(run_at > clock_timestamp() + interval '59 minutes') from q_data.job where rate_wait),
  'until their key''s window frees a start');
select is((select count(*)::integer from q.claim('kr', 100)), 0, 'the next claim starts nothing');
select is((select count(*)::integer from q_data.job where state = 'w'), 0, 'and no put-off job is left in the claim index');

select * from finish();
rollback;
