-- A job's own max_attempts wins over its queue's, in both directions.
begin;
select plan(3);

select q.configure('override', max_attempts => 2) \g /dev/null
select q.enqueue('override', '{"n": "one"}', max_attempts => 1) as one_id \gset
select q.enqueue('override', '{"n": "three"}', max_attempts => 3) as three_id \gset

select token as t from q.claim('override') \gset
select is(q.fail(:one_id, :'t', 'x', retry_in => '0'), 'dead', 'max_attempts => 1 dies on the first failure despite the queue''s 2');

select token as t from q.claim('override') \gset
select q.fail(:three_id, :'t', 'x', retry_in => '0') \g /dev/null
select token as t from q.claim('override') \gset
select is(q.fail(:three_id, :'t', 'x', retry_in => '0'), 'retry', 'max_attempts => 3 retries after the queue''s 2');
select token as t from q.claim('override') \gset
select is(q.fail(:three_id, :'t', 'x', retry_in => '0'), 'dead', 'and dies on its own 3rd failure');

select * from finish();
rollback;
