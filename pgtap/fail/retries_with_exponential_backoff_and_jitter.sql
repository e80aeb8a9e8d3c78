-- A retryable failure schedules the job again after backoff_base *
-- 2^(failures-1), times a random factor in [0.5, 1): with a 10 s base the
-- 1st failure waits 5..10 s, the 2nd 10..20 s, the 3rd 20..40 s. The delay
-- is measured from the failure time the job's errors record. "Time passes"
-- by moving the scheduled job's run_at into the past.
begin;
select plan(9);

select q.configure('backoff', backoff_base => '10 seconds', backoff_max => '1 hour', max_attempts => 10) \g /dev/null
select count(*) from q.enqueue_many('backoff', (select jsonb_agg(i) from generate_series(1, 20) i)) \g /dev/null

create temp table delays (failure integer, id bigint, status text, state "char", delay interval, token uuid);
create function pg_temp.fail_all(failure integer) returns void language sql as $$
  update q_data.job set run_at = now() - interval '1 minute' where state = 's';
  insert into delays
    select failure, c.id, q.fail(c.id, c.token, 'failure ' || failure), null, null, c.token
      from q.claim('backoff', 20) c;
  update delays d
     set state = j.state,
         delay = j.run_at - (j.errors->-1->>'at')::timestamptz
    from q_data.job j
   where j.id = d.id and d.failure = fail_all.failure;
$$;
select pg_temp.fail_all(1), pg_temp.fail_all(2), pg_temp.fail_all(3) \g /dev/null

select is((select count(*)::integer from delays where status = 'retry' and state = 's'), 60,
  'every failure returned ''retry'' and left the job scheduled');
select ok((select bool_and(delay >= interval '5 seconds' and delay < interval '10 seconds') from delays where failure = 1),
  '1st failure: retried after 5 to 10 seconds');
select ok((select bool_and(delay >= interval '10 seconds' and delay < interval '20 seconds') from delays where failure = 2),
  '2nd failure: retried after 10 to 20 seconds');
select ok((select bool_and(delay >= interval '20 seconds' and delay < interval '40 seconds') from delays where failure = 3),
  '3rd failure: retried after 20 to 40 seconds');
select cmp_ok((select count(distinct delay)::integer from delays where failure = 1), '>', 10,
  'jitter: jobs that failed together do not all retry at the same moment');
select is((select count(*)::integer from q_data.job where state = 's' and token is null and lease_until is null and owner is null), 20,
  'a retried job carries no claim (token, lease, owner cleared)');
select is((select count(*)::integer from q_data.job where jsonb_array_length(errors) = 3), 20, 'every failure is recorded in errors');
select results_eq(
  $$ select e->>'attempt', e->>'error', e->>'crashed' from q_data.job j, jsonb_array_elements(j.errors) with ordinality x(e, n)
      where j.id = (select min(id) from q_data.job) order by n $$,
  $$ values ('1', 'failure 1', 'false'), ('2', 'failure 2', 'false'), ('3', 'failure 3', 'false') $$,
  'errors hold attempt, message and crashed = false, in order');
select is((select count(*)::integer from q.claim('backoff', 20)), 0, 'a job backing off is not claimed before its time');

select * from finish();
rollback;
