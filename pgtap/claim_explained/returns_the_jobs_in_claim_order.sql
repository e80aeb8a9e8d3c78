-- A claim that is not short returns the jobs q.claim would, in claim order,
-- with blocked and retry_in NULL on every row.
begin;
select plan(4);

select q.enqueue('ce', jsonb_build_object('i', g), priority => g % 2) from generate_series(1, 4) g \g /dev/null

select results_eq(
  $$ select payload ->> 'i', attempt, blocked, retry_in from q.claim_explained('ce', 3) $$,
  $$ values ('1', 1, null::text, null::interval), ('3', 1, null, null), ('2', 1, null, null) $$,
  'three jobs, highest priority then oldest, no reason on any row');
select is((select count(*)::integer from q_data.job where state = 'r' and token is not null and lease_until > now()), 3,
  'they are claimed: running, with a token and a lease');
select results_eq(
  $$ select payload ->> 'i', blocked from q.claim_explained('ce', 1) $$,
  $$ values ('4', null::text) $$,
  'the next claim takes the last job');
select results_eq(
  $$ select id, token, blocked, retry_in from q.claim_explained('ce', 5) $$,
  $$ values (null::bigint, null::uuid, null::text, null::interval) $$,
  'an empty queue: one row with no job and no reason');

select * from finish();
rollback;
