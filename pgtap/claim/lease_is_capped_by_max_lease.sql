-- Leases are capped by the queue's max_lease (default 1 hour): up to 0007,
-- q.claim('cap', 3, lease => '1000 years', owner => 0) and a disconnect held a
-- concurrency-3 queue full for good. A longer claim or heartbeat is refused
-- with 22023 and changes nothing; q.configure keeps lease <= max_lease.
begin;
select plan(8);

select q.enqueue_many('cap', '[1, 2, 3]') \g /dev/null
select throws_ok($$ select * from q.claim('cap', 3, lease => '1000 years', owner => 0) $$, '22023',
  'lease 1000 years is longer than queue ''cap''''s max_lease 01:00:00',
  'a claim asking for 1000 years is refused (22023), naming the cap');
select is((select count(*)::integer from q_data.job where state = 'w'), 3, 'and claims nothing');
select isnt_empty($$ select * from q.claim('cap', 1, lease => '1 hour') $$, 'a lease of max_lease is fine');
select id, token from q.claim('cap', 1) \gset
select throws_ok(format($$ select q.heartbeat(%s, %L, lease => '2 hours') $$, :id, :'token'), '22023', null,
  'a heartbeat asking for more than max_lease is refused (22023)');
select is(q.heartbeat(:id, :'token', lease => '59 minutes'), 'running', 'within the cap it extends the lease');
select throws_ok($$ select q.configure('cap', lease => '2 hours') $$, '22023', null,
  'configure refuses a default lease over max_lease');
select lives_ok($$ select q.configure('cap', lease => '2 hours', max_lease => '1 day') $$,
  'raising max_lease with it is fine');
select isnt_empty($$ select * from q.claim('cap', 1, lease => '1 day') $$, 'and then a claim of a day is too');

select * from finish();
rollback;
