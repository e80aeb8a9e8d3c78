-- q.retry_dead puts dead jobs of one queue back, oldest first, at most
-- max_rows per call, optionally only those whose last error contains a text;
-- a job whose dedup key a live job holds stays dead and is counted skipped.
begin;
select plan(10);

select q.configure('rd', max_attempts => 1) \g /dev/null
select count(*) from q.enqueue_many('rd', '[1, 2, 3, 4, 5]') \g /dev/null
select q.enqueue('rd', '{"n": 6}', dedup_key => 'k') as keyed_id \gset
select q.fail(id, token, case when payload = '1' then 'SMTP timeout' else 'ValueError' end)
  from q.claim('rd', 10) \g /dev/null
select q.enqueue('rd', '{"n": 7}', dedup_key => 'k') \g /dev/null
select q.enqueue('other', '{}', max_attempts => 1) \g /dev/null
select q.fail(id, token, 'x') from q.claim('other') \g /dev/null

select results_eq($$ select retried, skipped, more from q.retry_dead('rd', error_contains => 'smtp') $$,
  $$ values (1, 0, false) $$, 'only the job whose last error mentions smtp (case-insensitive)');
select results_eq($$ select retried, skipped, more from q.retry_dead('rd', max_rows => 2) $$,
  $$ values (2, 0, true) $$, 'max_rows bounds the call; more says dead jobs remain');
select results_eq($$ select retried, skipped, more from q.retry_dead('rd') $$,
  $$ values (2, 1, false) $$, 'the rest: one skipped, its dedup key is held by a live job');
select is((select state from q_data.job_history where id = :keyed_id), 'dead', 'the skipped job is still dead');
select is((select count(*)::integer from q_data.job j join q_data.queue qq on qq.id = j.queue_id
            where qq.name = 'rd' and j.state = 'w' and j.attempt = 0 and j.errors is not null), 5,
  'five jobs are waiting again with attempt 0 and their errors kept');
select is((select count(*)::integer from q_data.job_history h join q_data.queue qq on qq.id = h.queue_id where qq.name = 'other'), 1,
  'another queue''s dead job is left alone');
select results_eq($$ select retried, skipped, more from q.retry_dead('rd') $$, $$ values (0, 1, false) $$,
  'nothing left to retry but the one that stays skipped');

select throws_ok($$ select * from q.retry_dead('nope') $$, 'P0002', 'queue ''nope'' does not exist', 'unknown queue: P0002');
select throws_ok($$ select * from q.retry_dead('rd', max_rows => 0) $$, '22023',
  'max_rows must be between 1 and 100000, got 0', 'max_rows 0: 22023');
select throws_ok($$ select * from q.retry_dead('bad name!') $$, '22023', null, 'a malformed queue name: 22023');

select * from finish();
rollback;
