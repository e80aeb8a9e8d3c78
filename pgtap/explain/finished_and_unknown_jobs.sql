-- A finished job says how it finished: completed (when the queue keeps
-- history), dead with its last error, cancelled; an id pgq does not know is
-- 'unknown'. NULL is refused (22004).
begin;
select plan(9);

select q.configure('keep', keep_completed => true) \g /dev/null
select q.enqueue('keep', '{}') as done_id \gset
select q.complete(id, token) from q.claim('keep') \g /dev/null
select q.enqueue('x', '{}', max_attempts => 1) as dead_id \gset
select q.fail(id, token, E'ValueError: bad input\nline 2') from q.claim('x') \g /dev/null
select q.enqueue('x', '{}') as cancelled_id \gset
select q.cancel(:cancelled_id) \g /dev/null

select results_eq(format('select code from q.explain(%s)', :done_id), $$ values ('completed') $$,
  'a completed job kept in history: one row, completed');
select matches((select message from q.explain(:done_id)), '^completed at .* after 1 attempt\(s\)$',
  'it says when and after how many attempts');
select results_eq(format('select code from q.explain(%s)', :dead_id), $$ values ('dead') $$, 'a dead job: dead');
select matches((select message from q.explain(:dead_id)), 'ValueError: bad input',
  'a dead job''s reason quotes its last error');
select is((select detail -> 'last_error' ->> 'error' from q.explain(:dead_id)), E'ValueError: bad input\nline 2',
  'the detail carries the whole last error entry');
select results_eq(format('select code from q.explain(%s)', :cancelled_id), $$ values ('cancelled') $$,
  'a cancelled job: cancelled');
select results_eq('select code, detail from q.explain(987654321)',
  $$ values ('unknown', '{"id": 987654321}'::jsonb) $$, 'an id pgq never saw: unknown');
select throws_ok('select * from q.explain(null)', '22004', 'job id must not be null', 'a NULL id is refused (22004)');
select is((select count(*)::integer from q.explain(:dead_id)), 1, 'a finished job has exactly one reason');

select * from finish();
rollback;
