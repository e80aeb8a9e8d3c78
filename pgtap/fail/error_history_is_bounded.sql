-- Bounded storage per job (design.md#bounded-storage-per-job): each error entry keeps at most
-- 4,096 characters of message (then a "[truncated: N characters in all]"
-- marker) and a job keeps its newest 20 entries, on every path that writes
-- errors: q.fail, q.fail_many, q.reap (lost claims) and q.retry. In 0002 an
-- entry kept 65,536 characters and every entry was kept: about 1,000 long
-- failures reached jsonb's 256 MiB limit and q.fail (then q.reap) raised 54000.
begin;
select plan(9);

select q.enqueue('bounded', '{}', max_attempts => 1000) as job_id \gset
create function pg_temp.fail_once(msg text) returns text language plpgsql as $$
declare
  v_claim record;
begin
  select id, token into v_claim from q.claim('bounded', 1, owner => 0);
  return q.fail(v_claim.id, v_claim.token, msg, retry_in => '0');
end
$$;
select count(*) from generate_series(1, 24) g, lateral pg_temp.fail_once(repeat('e', 10000) || g) \g /dev/null

select is((select jsonb_array_length(errors) from q_data.job where id = :job_id), 20, 'q.fail keeps the newest 20 entries');
select is((select array_agg((e->>'attempt')::integer order by o) from q_data.job, jsonb_array_elements(errors) with ordinality x(e, o) where id = :job_id),
          array(select generate_series(5, 24)), 'those are attempts 5 to 24, oldest first');
select is((select max(length(e->>'error')) from q_data.job, jsonb_array_elements(errors) e where id = :job_id),
          4096 + length(' [truncated: 10002 characters in all]'), 'each message is cut at 4,096 characters plus the marker');
select ok((select bool_and(e->>'error' like '% [truncated: 1000_ characters in all]') from q_data.job, jsonb_array_elements(errors) e where id = :job_id),
          'the marker says how long the message was');

-- fail_many goes through q.fail.
select id as fm_id, token as fm_token from q.claim('bounded', 1, owner => 0) \gset
select count(*) from q.fail_many(array[:fm_id]::bigint[], array[:'fm_token']::uuid[], array[repeat('m', 9000)], '0') \g /dev/null
select is((select jsonb_array_length(errors) from q_data.job where id = :job_id), 20, 'q.fail_many keeps 20 too');

-- A lost claim (reap) appends within the bound.
select count(*) from q.claim('bounded', 1, lease => '1 millisecond', owner => 0) \g /dev/null
select pg_sleep(0.01) \g /dev/null
select is(q.reap(), 1, '(the expired claim is reaped)');
select is((select jsonb_array_length(errors) || ' ' || (errors->-1->>'crashed') from q_data.job where id = :job_id), '20 true',
          'q.reap keeps 20, the newest being the lost claim');

-- A history written before the bound (0002 kept everything) is cut on retry.
insert into q_data.job_history (id, queue_id, state, payload, priority, attempt, run_at, finished_at, errors)
select 900000, (select id from q_data.queue where name = 'bounded'), 'dead', '{}', 0, 30, now(), now(),
       (select jsonb_agg(jsonb_build_object('attempt', g, 'at', now(), 'error', 'old', 'crashed', false)) from generate_series(1, 30) g);
select is(q.retry(900000), 900000::bigint, '(an old dead job with 30 errors is retried)');
select is((select jsonb_array_length(errors) || ' ' || (errors->0->>'attempt') from q_data.job where id = 900000), '20 11',
          'q.retry keeps its newest 20 entries');

select * from finish();
rollback;
