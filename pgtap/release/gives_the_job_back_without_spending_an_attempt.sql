-- release hands a claimed job back unfinished (e.g. on worker shutdown): it
-- is waiting again at once, in its old place, and the attempt is taken back.
-- A stale token releases nothing.
begin;
select plan(7);

select q.enqueue('rel', '{"n": 1}') as first_id \gset
select q.enqueue('rel', '{"n": 2}') as second_id \gset
select id as claimed_id, token as claimed_token from q.claim('rel') \gset
select (select run_at from q_data.job where id = :first_id) as first_run_at \gset

select is(q.release(:claimed_id, :'claimed_token'), true, 'releasing the current claim returns true');
select results_eq(
  $$ select state::text, attempt::integer, token, lease_until, owner from q_data.job where id = $$ || :first_id,
  $$ values ('w', 0, null::uuid, null::timestamptz, null::integer) $$,
  'the job is waiting again, attempt taken back, no claim left');
select is((select run_at from q_data.job where id = :first_id), :'first_run_at'::timestamptz, 'it keeps its run_at');
select is(q.release(:claimed_id, :'claimed_token'), false, 'releasing it again returns false');
select is(q.complete(:claimed_id, :'claimed_token'), false, 'the released claim cannot complete');

select id as again_id, attempt as again_attempt from q.claim('rel') \gset
select is(:again_id::bigint, :first_id::bigint, 'the released job is claimed next, ahead of younger jobs');
select is(:again_attempt, 1, 'and its next claim is attempt 1 again');

select * from finish();
rollback;
