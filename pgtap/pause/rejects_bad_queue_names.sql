-- pause validates the queue name like every call (22023 / 22004) and
-- creates nothing when it fails.
begin;
select plan(5);

select throws_ok($$ select q.pause('') $$, '22023', null, 'an empty name is rejected when no queue exists yet');
select q.enqueue('existing', '{}') \g /dev/null

select throws_ok($$ select q.pause('no such;queue') $$, '22023', null, 'a malformed name is rejected');
select throws_ok($$ select q.pause(null) $$, '22004', null, 'a NULL name is rejected');
select is((select count(*)::integer from q_data.queue), 1, 'no queue row was created');
select is((select paused from q_data.queue where name = 'existing'), false, 'the existing queue was not paused');

select * from finish();
rollback;
