-- A result over the queue's max_result_size raises 54000 and changes
-- nothing: the job stays claimed, no result row, no tally; complete_many the
-- same, for the whole batch.
begin;
select plan(8);

select q.configure('cap', max_result_size => 100) \g /dev/null
select q.enqueue('cap', '{}') as a_id \gset
select q.enqueue('cap', '{}') as b_id \gset
select id as a, token as a_token from q.claim('cap') \gset
select id as b, token as b_token from q.claim('cap') \gset

select throws_ok(format($$ select q.complete(%s, %L, jsonb_build_object('big', repeat('x', 200))) $$, :a, :'a_token'),
  '54000', null, 'an over-size result raises 54000');
select is((select state::text from q_data.job where id = :a), 'r', 'the job is still claimed');
select is((select count(*)::integer from q_data.job_result), 0, 'no result row');
select is((select count(*)::integer from q_data.tally where queue_id = (select id from q_data.queue where name = 'cap')), 0,
  'no completion tallied');

select throws_ok(format($$ select q.complete_many(array[%s, %s]::bigint[], array[%L, %L]::uuid[],
                                                  array['{"ok": 1}', jsonb_build_object('big', repeat('x', 200))]::jsonb[]) $$,
                        :a, :b, :'a_token', :'b_token'),
  '54000', null, 'complete_many with one over-size result raises 54000');
select is((select count(*)::integer from q_data.job where state = 'r'), 2, 'both jobs are still claimed');

select throws_ok($$ select q.configure('cap', max_result_size => -1) $$, '22023', null, 'a negative cap is refused');
select is(q.complete(:a, :'a_token', '{"small": true}'), true, 'a result under the cap is stored');

select * from finish();
rollback;
