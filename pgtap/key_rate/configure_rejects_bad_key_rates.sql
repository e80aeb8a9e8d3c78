-- Bad per-key rates: 22023 with a message that names the problem, nothing written.
begin;
select plan(12);
\ir ../_helpers.psql

select q.configure('bad', key_concurrency => 5) \g /dev/null
select pg_temp.pgq_state() as before \gset

select throws_ok($$ select q.configure('bad', key_rate => 0) $$, '22023',
  'key_rate must be between 1 and 1000 starts per key_per (unlimit => ''{key_rate}'' removes it), got 0', 'key_rate 0');
select throws_ok($$ select q.configure('bad', key_rate => 1001) $$, '22023', null, 'key_rate over 1000');
select throws_ok($$ select q.configure('bad', key_rate => -3) $$, '22023', null, 'negative key_rate');
select throws_ok($$ select q.configure('bad', key_rate => 5, key_per => '0 seconds') $$, '22023',
  'key_per must be more than 0 and at most 1 day, got 00:00:00', 'key_per 0');
select throws_ok($$ select q.configure('bad', key_rate => 5, key_per => '-1 second') $$, '22023', null, 'negative key_per');
select throws_ok($$ select q.configure('bad', key_rate => 5, key_per => '25 hours') $$, '22023', null, 'key_per over a day');
select throws_ok($$ select q.configure('bad', key_per => '1 second') $$, '22023', 'key_per needs a key_rate', 'key_per alone');
select throws_ok($$ select q.configure('bad', key_rate => 5, unlimit => '{key_rate}') $$, '22023',
  'a limit cannot be set and removed (unlimit) in one call', 'set and removed at once');
select throws_ok($$ select q.configure('nokeys', key_rate => 5) $$, '22023',
  'a per-key rate needs key_concurrency (at most that many jobs of a key wait to start at once), got key_rate 5 without it',
  'a key rate without key_concurrency');
select is(pg_temp.pgq_state(), :'before', 'nothing was written by those calls (not even the queue nokeys)');
select q.configure('bad', key_rate => 5) \g /dev/null
select pg_temp.pgq_state() as before \gset
select throws_ok($$ select q.configure('bad', unlimit => '{key_concurrency}') $$, '22023', null,
  'removing key_concurrency while a key rate needs it');
select is(pg_temp.pgq_state(), :'before', 'nor by that one: key_concurrency stays');

select * from finish();
rollback;
