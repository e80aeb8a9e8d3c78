-- A worker that reconnected moves its running claims under its new liveness
-- key; only the current token moves a claim, and a stale one moves nothing.
begin;
select plan(6);

insert into q_data.session (key, pid, backend_start) values (2000000001, 0, now() - interval '1 hour');
select q.session_key() as new_key \gset
select q.enqueue('adopt', '{"n": 1}') as a \gset
select q.enqueue('adopt', '{"n": 2}') as b \gset
create temp table claimed as select * from q.claim('adopt', 2, lease => '1 hour', owner => 2000000001);
select token as a_token from claimed where id = :a \gset
select token as b_token from claimed where id = :b \gset

select is(
  array(select * from q.adopt(array[:a, :b]::bigint[], array[:'a_token', gen_random_uuid()]::uuid[], :new_key)),
  array[:a]::bigint[], 'only the claim with its current token is adopted');
select is((select owner from q_data.job where id = :a), :new_key, 'the adopted claim names the new key');
select is((select owner from q_data.job where id = :b), 2000000001, 'a stale token leaves the claim where it was');
select is((select token from q_data.job where id = :a), :'a_token'::uuid, 'adopting keeps the token: the handler''s complete still counts');
select is(q.complete(:a, :'a_token'), true, 'the adopted job completes with its token');
select is(array(select * from q.adopt(array[:a]::bigint[], array[:'a_token']::uuid[], :new_key)), '{}'::bigint[],
  'a finished job cannot be adopted');

select * from finish();
rollback;
