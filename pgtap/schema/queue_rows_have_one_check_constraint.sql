-- q_data.queue's rules are one CHECK constraint, settings_are_valid, calling
-- q.check_queue_settings (0008, design.md#queue-names-cost-nothing-when-idle): PostgreSQL rebuilds every
-- CHECK expression of a table from its text at each INSERT, and 17 of them
-- made an enqueue into a new queue name cost ~1.6x 0002's. The rules hold as
-- before, and a violation names the rule.
begin;
select plan(7);

select is((select count(*)::integer from pg_constraint where conrelid = 'q_data.queue'::regclass and contype = 'c'), 1,
  'q_data.queue has one CHECK constraint');
select throws_ok($$ insert into q_data.queue (name) values ('-bad') $$, '23514',
  'queue setting violates name_is_valid: ''-bad''', 'a malformed name');
select throws_ok($$ insert into q_data.queue (name, lease) values ('a', interval '0') $$, '23514',
  'queue setting violates lease_is_positive: 00:00:00', 'a lease of zero');
select throws_ok($$ insert into q_data.queue (name, backoff_base, backoff_max) values ('a', '1 hour', '1 minute') $$, '23514',
  'queue setting violates backoff_max_is_at_least_base: 00:01:00 < 01:00:00', 'backoff_max below backoff_base');
select throws_ok($$ insert into q_data.queue (name, concurrency) values ('a', 10001) $$, '23514',
  'queue setting violates concurrency_is_in_range: 10001', 'concurrency out of range');
select throws_ok($$ insert into q_data.queue (name, key_rate, key_per) values ('a', 5, '1 second') $$, '23514',
  'queue setting violates key_rate_needs_key_concurrency', 'a key rate without key_concurrency');
select lives_ok($$ insert into q_data.queue (name, key_concurrency, ordered, rate, per, key_rate, key_per)
                   values ('fine', 1, true, 10, '1 second', 5, '1 minute') $$, 'every limit at once, in range');

select * from finish();
rollback;
