-- key_concurrency 2: a key's third job is held (state h, outside the claim
-- index); jobs without a key and of other keys are not limited by it.
begin;
select plan(5);

select (q.configure('keys', key_concurrency => 2)).key_concurrency as k \gset
select q.enqueue('keys', jsonb_build_object('i', g), concurrency_key => 'a') from generate_series(1, 4) g \g /dev/null
select q.enqueue('keys', '{"b": 1}', concurrency_key => 'b') \g /dev/null
select q.enqueue('keys', jsonb_build_object('none', g)) from generate_series(1, 3) g \g /dev/null

select is((select count(*)::integer from q_data.job where concurrency_key = 'a' and state = 'h'), 2, 'two of key a are held');
select is((select count(*)::integer from q_data.job where concurrency_key = 'a' and state = 'w' and key_slot is not null), 2,
  'two of key a are admitted, each with a key slot');
select is((select count(*)::integer from q.claim('keys', 100)), 6, 'a claim gets 2 of a, 1 of b and the 3 without a key');
select is((select count(*)::integer from q.claim('keys', 100)), 0, 'then nothing: the rest of a is held');
select is((select count(*)::integer from q_data.job where concurrency_key = 'a' and state = 'r'), 2, 'key a runs 2 at most');

select * from finish();
rollback;
