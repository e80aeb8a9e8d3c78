begin;
select plan(3);

select q.enqueue('t', '{"n": 1}') \g /dev/null
select q.enqueue('t', '{"n": 2}', priority => 5) \g /dev/null
select q.enqueue('t', '{"n": 3}') \g /dev/null

select is((select payload from q.claim('t', 1)), '{"n": 2}'::jsonb, 'the highest priority comes first');
select is((select payload from q.claim('t', 1)), '{"n": 1}'::jsonb, 'then the oldest');
select is((select payload from q.claim('t', 1)), '{"n": 3}'::jsonb, 'then the next oldest');

select * from finish();
rollback;
