-- A job that is not claimed yet: every reason that applies, one row each.
-- scheduled (for later), backing_off (after failure N), due (not promoted
-- yet), paused, behind (K jobs of higher priority or older), ready (first in
-- line).
begin;
select plan(11);

select q.enqueue('w', '{}', priority => 5) as high_id \gset
select q.enqueue('w', '{}') as older_id \gset
select q.enqueue('w', '{}') as mine_id \gset
select q.enqueue('w', '{}', priority => -1) as last_id \gset
update q_data.job set run_at = run_at - interval '1 second' where id = :older_id;

select results_eq(format('select code from q.explain(%s)', :high_id), $$ values ('ready') $$,
  'the first job in claim order is ready');
select results_eq(format('select code, detail ->> ''higher_priority'', detail ->> ''older'' from q.explain(%s)', :mine_id),
  $$ values ('behind', '1', '1') $$, 'behind one job of higher priority and one older of the same priority');
select results_eq(format('select (detail ->> ''ahead'')::integer from q.explain(%s)', :last_id), $$ values (3) $$,
  'a job of lower priority is behind all three');
select matches((select message from q.explain(:mine_id)), '^waiting behind 2 job\(s\) of queue w',
  'in plain words');

select q.pause('w') \g /dev/null
select results_eq(format('select code from q.explain(%s)', :high_id), $$ values ('paused') $$,
  'paused queue: the first job says paused, and not ready');
select results_eq(format('select code from q.explain(%s) order by code', :mine_id), $$ values ('behind'), ('paused') $$,
  'two reasons, two rows: paused and behind');
select q.resume('w') \g /dev/null

select q.enqueue('s', '{}', run_at => clock_timestamp() + interval '1 hour') as later_id \gset
select results_eq(format('select code, (detail ->> ''run_at'')::timestamptz = (select run_at from q_data.job where id = %s) from q.explain(%s)', :later_id, :later_id),
  $$ values ('scheduled', true) $$, 'scheduled for later, with the time');

select q.enqueue('s', '{}') as failed_id \gset
select q.fail(id, token, 'timeout talking to smtp', retry_in => interval '10 minutes') from q.claim('s') \g /dev/null
select results_eq(format('select code, (detail ->> ''failures'')::integer from q.explain(%s)', :failed_id),
  $$ values ('backing_off', 1) $$, 'after a failure: backing off, failure 1');
select matches((select message from q.explain(:failed_id)), '^backing off after failure 1 until .*: timeout talking to smtp$',
  'it names the failure and the error');

update q_data.job set run_at = now() - interval '1 minute' where id = :later_id;
select results_eq(format('select code from q.explain(%s)', :later_id), $$ values ('due') $$,
  'a scheduled job whose time has come, not yet promoted: due (and first in line, so nothing else)');
select q.pause('s') \g /dev/null
select results_eq(format('select code from q.explain(%s) order by code', :later_id), $$ values ('due'), ('paused') $$,
  'due and paused');

select * from finish();
rollback;
