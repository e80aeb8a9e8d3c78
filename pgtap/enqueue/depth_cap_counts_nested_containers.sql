-- The nesting cap and its wording agree: at most 100 nested arrays/objects
-- (54000 "nests deeper than 100 levels"). 0002 looked for anything at path
-- level 101 and let 101 nested empty arrays through.
begin;
select plan(8);

select lives_ok(format($$ select q.enqueue('deep', %L) $$, repeat('[', 100) || repeat(']', 100)),
  '100 nested empty arrays are accepted');
select throws_ok(format($$ select q.enqueue('deep', %L) $$, repeat('[', 101) || repeat(']', 101)), '54000',
  'payload nests deeper than 100 levels; the cap is 100', '101 nested empty arrays are refused');
select lives_ok(format($$ select q.enqueue('deep', %L) $$, repeat('[', 100) || '1' || repeat(']', 100)),
  'a scalar inside 100 nested arrays is accepted');
select throws_ok(format($$ select q.enqueue('deep', %L) $$, repeat('{"k":', 100) || '{}' || repeat('}', 100)), '54000',
  null, '101 nested objects are refused');

select lives_ok(format($$ select q.enqueue_many('deep', %L) $$, '[' || repeat('[', 100) || repeat(']', 100) || ']'),
  'q.enqueue_many accepts an element of 100 nested empty arrays');
select throws_ok(format($$ select q.enqueue_many('deep', %L) $$, '[1, ' || repeat('[', 101) || repeat(']', 101) || ']'), '54000',
  'a payload nests deeper than 100 levels; the cap is 100', 'q.enqueue_many refuses an element of 101');
select lives_ok(format($$ select q.enqueue_many('deep', %L) $$, '[' || repeat('[', 100) || '"x"' || repeat(']', 100) || ']'),
  'q.enqueue_many accepts a scalar inside 100 nested arrays');
select is((select count(*)::integer from q_data.job), 4, 'four jobs went in');

select * from finish();
rollback;
