-- q_data.job's rules are one CHECK constraint, job_row_is_consistent (0011,
-- design.md#one-check-constraint-one-trigger-per-event): PostgreSQL parses
-- every CHECK constraint of a table from its text again for each statement
-- that writes a row, and seven of them cost every claim about 8 % of its
-- server time. Each of the seven rules still refuses a row that breaks it.
begin;
select plan(10);

select is((select count(*)::integer from pg_constraint where conrelid = 'q_data.job'::regclass and contype = 'c'), 1,
  'q_data.job has one CHECK constraint');

create temp table bad (rule text, sets text);
insert into bad values
  ('an unknown state',                      $$ state = 'x' $$),
  ('running without a token',               $$ state = 'r' $$),
  ('a token while not running',             $$ token = gen_random_uuid() $$),
  ('max_attempts of zero',                  $$ max_attempts = 0 $$),
  ('a held job with a key slot',            $$ state = 'h', concurrency_key = 'k', key_slot = 1 $$),
  ('a queue slot while not running',        $$ queue_slot = 1 $$),
  ('parents_left below zero',               $$ parents_left = -1 $$),
  ('pending with no parents left',          $$ state = 'p', parents_left = 0 $$);

select q.enqueue('rules', '{}') as job \gset

select throws_ok(format('update q_data.job set %s where id = %s', b.sets, :job), '23514',
                 'new row for relation "job" violates check constraint "job_row_is_consistent"',
                 'refused: ' || b.rule)
  from bad b order by b.rule;

select lives_ok(format($$ update q_data.job set state = 'r', token = gen_random_uuid(), lease_until = now() + interval '1 minute' where id = %s $$, :job),
  'a running job with its token is a consistent row');

select * from finish();
rollback;
