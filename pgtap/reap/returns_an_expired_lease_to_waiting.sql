-- A claim whose lease ran out goes back to waiting: crashes + 1, the claim
-- cleared, the loss written to errors. A claim still within its lease stays.
begin;
select plan(6);

select q.enqueue('reap', '{"n": "expired"}') as expired_id \gset
select q.enqueue('reap', '{"n": "alive"}') as alive_id \gset
select q.claim('reap', 1, lease => '1 millisecond', owner => 0) \g /dev/null
select q.claim('reap', 1, lease => '1 hour', owner => 0) \g /dev/null
select pg_sleep(0.05) \g /dev/null

select is(q.reap(), 1, 'reap returns the one expired claim');
select results_eq(
  $$ select state::text, attempt::integer, crashes::integer, token, lease_until, owner from q_data.job where id = $$ || :expired_id,
  $$ values ('w', 1, 1, null::uuid, null::timestamptz, null::integer) $$,
  'the expired job is waiting again with crashes = 1 and no claim');
select results_eq(
  $$ select (e->>'attempt')::integer, e->>'error', (e->>'crashed')::boolean
       from q_data.job j, jsonb_array_elements(j.errors) e where j.id = $$ || :expired_id,
  $$ values (1, 'claim lost (lease expired)', true) $$,
  'the lost claim is recorded in errors as a crash of attempt 1');
select is((select state::text from q_data.job where id = :alive_id), 'r', 'a claim within its lease is left running');
select is((select attempt::integer from q.claim('reap')), 2, 'the reclaimed job''s next claim is attempt 2');
select is(q.reap(), 0, 'a second reap finds nothing');

select * from finish();
rollback;
