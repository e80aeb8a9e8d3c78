-- Non-positive lease, negative intervals, backoff_max below backoff_base,
-- attempts or crashes outside 1..32767, a bad queue name: 22023 (NULL name
-- 22004). A rejected call changes nothing and creates no queue.
begin;
select plan(17);
\ir ../_helpers.psql

select q.configure('tuned', backoff_base => '10 seconds', backoff_max => '1 minute') \g /dev/null
select pg_temp.pgq_state() as before \gset

select throws_ok($$ select q.configure('tuned', lease => '0') $$, '22023', null, 'a zero lease is rejected');
select throws_ok($$ select q.configure('tuned', lease => '-1 minute') $$, '22023', null, 'a negative lease is rejected');
select throws_ok($$ select q.configure('tuned', backoff_base => '-1 second') $$, '22023', null, 'a negative backoff_base is rejected');
select throws_ok($$ select q.configure('tuned', backoff_max => '-1 second') $$, '22023', null, 'a negative backoff_max is rejected');
select throws_ok($$ select q.configure('tuned', retention => '-1 day') $$, '22023', null, 'a negative retention is rejected');
select throws_ok($$ select q.configure('tuned', backoff_base => '1 minute', backoff_max => '1 second') $$, '22023', null,
  'backoff_max below backoff_base is rejected');
select throws_ok($$ select q.configure('tuned', backoff_max => '5 seconds') $$, '22023', null,
  'backoff_max below the queue''s current backoff_base is rejected');
select throws_ok($$ select q.configure('tuned', backoff_base => '2 minutes') $$, '22023', null,
  'backoff_base above the queue''s current backoff_max is rejected');
select throws_ok($$ select q.configure('tuned', max_attempts => 0) $$, '22023', null, 'max_attempts 0 is rejected');
select throws_ok($$ select q.configure('tuned', max_attempts => 32768) $$, '22023', null, 'max_attempts over 32767 is rejected');
select throws_ok($$ select q.configure('tuned', max_crashes => 0) $$, '22023', null, 'max_crashes 0 is rejected');
select throws_ok($$ select q.configure('tuned', max_attempts => 5, max_crashes => -1) $$, '22023', null,
  'a bad max_crashes is rejected alongside a good max_attempts');
select throws_ok($$ select q.configure('fresh', lease => '0') $$, '22023', null, 'bad settings for a new queue are rejected');
select throws_ok($$ select q.configure('bad name', lease => '1 minute') $$, '22023', null, 'a malformed queue name is rejected');
select throws_ok($$ select q.configure(null) $$, '22004', null, 'a NULL queue name is rejected');

select is(pg_temp.pgq_state(), :'before', 'the rejected calls changed no setting and created no queue');
select lives_ok($$ select q.configure('tuned', backoff_base => '0', backoff_max => '0', retention => '0') $$,
  'zero backoff and retention are allowed');

select * from finish();
rollback;
