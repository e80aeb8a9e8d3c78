-- Payloads: not JSON (22P02), containing \u0000 (22P05), over 1 MiB as jsonb
-- (54000), NULL (22004). The JSON errors come from PostgreSQL's jsonb input,
-- so they are raised before pgq runs, exactly as a client sees them.
begin;
select plan(11);
\ir ../_helpers.psql

select q.enqueue('payloads', '{}') \g /dev/null
select pg_temp.pgq_state() as before \gset

select throws_ok($$ select q.enqueue('payloads', 'not json') $$, '22P02', null, 'a payload that is not JSON is rejected (22P02)');
select throws_ok($$ select q.enqueue('payloads', '{"a": }') $$, '22P02', null, 'truncated JSON is rejected (22P02)');
select throws_ok($$ select q.enqueue('payloads', '"\u0000"') $$, '22P05', null, 'a payload with \u0000 is rejected (22P05)');
select throws_ok($$ select q.enqueue('payloads', '{"k": "a\u0000b"}') $$, '22P05', null, 'a nested \u0000 is rejected (22P05)');
select throws_ok($$ select q.enqueue('payloads', to_jsonb(repeat('a', 1048576 - 12 + 1))) $$, '54000', null,
  'a payload one byte over 1 MiB is rejected (54000)');
select throws_ok($$ select q.enqueue('payloads', jsonb_build_object('k', repeat('x', 5000000))) $$, '54000', null,
  'a 5 MB payload is rejected (54000)');
select throws_ok($$ select q.enqueue('payloads', null) $$, '22004', null, 'a NULL payload is rejected (22004)');
select throws_ok($$ select q.enqueue('new-queue', null) $$, '22004', null, 'a NULL payload for a new queue is rejected (22004)');

select is(pg_temp.pgq_state(), :'before', 'the rejected enqueues wrote nothing: no job, no queue row');

select is(pg_column_size(to_jsonb(repeat('a', 1048576 - 12))), 1048576, '(the next payload is exactly 1 MiB as jsonb)');
select lives_ok($$ select q.enqueue('payloads', to_jsonb(repeat('a', 1048576 - 12))) $$, 'a payload of exactly 1 MiB is accepted');

select * from finish();
rollback;
