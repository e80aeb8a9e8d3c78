-- Bad arguments to q.schedule: documented SQLSTATE, nothing written (no
-- schedule, no queue row for the queue named).
begin;
select plan(22);
\ir ../_schedule_helpers.psql
select q.schedule('keep', '0 3 * * *', 'existing') \g /dev/null
select pg_temp.schedule_state() as before \gset

select throws_ok($$ select q.schedule(null, '* * * * *', 'q2') $$, '22004', 'schedule name must not be null', 'NULL name');
select throws_ok($$ select q.schedule('', '* * * * *', 'q2') $$, '22023', null, 'empty name');
select throws_ok($$ select q.schedule(repeat('n', 129), '* * * * *', 'q2') $$, '22023', null, 'a name over 128 characters');
select lives_ok($$ select q.schedule(repeat('n', 128), '* * * * *', 'existing'); select q.unschedule(repeat('n', 128)) $$,
  'a name of exactly 128 characters is fine (positive control)');
select throws_ok($$ select q.schedule(E'bad\nname', '* * * * *', 'q2') $$, '22023', null, 'a name with a control character');
select throws_ok($$ select q.schedule('s', '* * * * *', null) $$, '22004', null, 'no queue');
select throws_ok($$ select q.schedule('s', '* * * * *', 'bad queue!') $$, '22023', null, 'a malformed queue name');
select throws_ok($$ select q.schedule('s', null, 'q2') $$, '22023', null, 'neither cron nor every');
select throws_ok($$ select q.schedule('s', '* * * * *', 'q2', every => '1 minute') $$, '22023', null, 'both cron and every');
select throws_ok($$ select q.schedule('s', queue => 'q2', every => '0.5 seconds') $$, '22023', null, 'every under a second');
select throws_ok($$ select q.schedule('s', queue => 'q2', every => '1.5 seconds') $$, '22023', null, 'every not in whole seconds');
select throws_ok($$ select q.schedule('s', queue => 'q2', every => '1 month') $$, '22023', null, 'every in months (calendar: use cron)');
select throws_ok($$ select q.schedule('s', queue => 'q2', every => '-1 minute') $$, '22023', null, 'a negative every');
select throws_ok($$ select q.schedule('s', '* * * * *', 'q2', timezone => 'Mars/Olympus_Mons') $$, '22023',
  'unknown time zone ''Mars/Olympus_Mons'': use an IANA name such as Europe/Berlin or UTC', 'an unknown time zone');
select throws_ok($$ select q.schedule('s', '* * * * *', 'q2', timezone => null) $$, '22004', null, 'a NULL time zone');
select throws_ok($$ select q.schedule('s', '* * * * *', 'q2', payload => null) $$, '22004', null, 'a NULL payload');
select throws_ok($$ select q.schedule('s', '* * * * *', 'q2', payload => '[1, 2]') $$, '22023', null, 'a payload that is not an object');
select throws_ok($$ select q.schedule('s', '* * * * *', 'q2', payload => '{"slot": 1}') $$, '22023', null,
  'a payload with the reserved key slot');
select throws_ok($$ select q.schedule('s', '* * * * *', 'q2', priority => 40000) $$, '22023', null, 'priority out of range');
select throws_ok($$ select q.schedule('s', '* * * * *', 'q2', max_attempts => 0) $$, '22023', null, 'max_attempts of 0');
select throws_ok($$ select q.schedule('s', '* * * * *', 'q2', catch_up => 'some') $$, '22023',
  'catch_up must be latest, all or none, got ''some''', 'an unknown catch-up policy');

select is(pg_temp.schedule_state(), :'before', 'the refused calls wrote nothing: no schedule, no queue');

select * from finish();
rollback;
