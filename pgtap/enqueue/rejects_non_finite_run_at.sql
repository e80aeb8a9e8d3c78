-- run_at must be finite (22023), on q.enqueue and q.enqueue_many: in 0002
-- '-infinity' was stored, after which q.stats() failed for every admin
-- (22008), and 'infinity' parked a job forever, which with a dedup_key
-- squatted that key forever.
begin;
select plan(6);
\ir ../_helpers.psql

select q.enqueue('finite', '{}') \g /dev/null
select pg_temp.pgq_state() as before \gset

select throws_ok($$ select q.enqueue('finite', '{}', run_at => '-infinity') $$, '22023',
  'run_at must be a finite timestamp, got -infinity', 'q.enqueue rejects run_at -infinity');
select throws_ok($$ select q.enqueue('finite', '{}', run_at => 'infinity', dedup_key => 'mine') $$, '22023',
  'run_at must be a finite timestamp, got infinity', 'q.enqueue rejects run_at infinity (no dedup key squatted forever)');
select throws_ok($$ select q.enqueue_many('finite', '[1, 2]', run_at => 'infinity') $$, '22023',
  'run_at must be a finite timestamp, got infinity', 'q.enqueue_many rejects run_at infinity');
select throws_ok($$ select q.enqueue_many('finite', '[1, 2]', run_at => '-infinity') $$, '22023',
  'run_at must be a finite timestamp, got -infinity', 'q.enqueue_many rejects run_at -infinity');
select is(pg_temp.pgq_state(), :'before', 'nothing was written');
select lives_ok($$ select * from q.stats() $$, 'q.stats() still answers');

select * from finish();
rollback;
