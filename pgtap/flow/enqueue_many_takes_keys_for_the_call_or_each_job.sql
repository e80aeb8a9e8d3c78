-- q.enqueue_many: concurrency_key for the whole call, or concurrency_keys
-- with one key (or NULL) per payload.
begin;
select plan(4);

select (q.configure('many', key_concurrency => 1)).key_concurrency as k \gset
select q.enqueue_many('many', '[1, 2, 3]', concurrency_key => 'all') \g /dev/null
select is((select array_agg(state::text order by id) from q_data.job where concurrency_key = 'all'), array['w', 'h', 'h'],
  'one key for the call: the first admitted, the rest held in order');

select q.enqueue_many('many', '[4, 5, 6]', concurrency_keys => array['x', null, 'x']) \g /dev/null
select is((select array_agg(coalesce(concurrency_key, '-') || ':' || state::text order by id) from q_data.job where payload::int > 3),
  array['x:w', '-:w', 'x:h'], 'one key per payload, NULL for none');

select throws_ok($$ select q.enqueue_many('many', '[1, 2]', concurrency_keys => array['x']) $$,
  '22023', null, 'concurrency_keys must match payloads in length');
select throws_ok($$ select q.enqueue_many('many', '[1]', concurrency_key => 'a', concurrency_keys => array['b']) $$,
  '22023', null, 'not both forms at once');

select * from finish();
rollback;
