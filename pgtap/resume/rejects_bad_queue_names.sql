-- resume validates the queue name (22023 / 22004) and creates nothing when
-- it fails; resuming a queue that is not paused is harmless.
begin;
select plan(4);

select throws_ok($$ select q.resume('') $$, '22023', null, 'an empty name is rejected');
select throws_ok($$ select q.resume(null) $$, '22004', null, 'a NULL name is rejected');
select is((select count(*)::integer from q_data.queue), 0, 'no queue row was created');
select lives_ok($$ select q.resume('never-paused') $$, 'resuming a queue that is not paused is fine');

select * from finish();
rollback;
