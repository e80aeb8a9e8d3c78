-- The test clock is off in every database until q.allow_test_clock(true):
-- then even an admin's pgq.schedule_now is ignored, with a warning, so a
-- session left with the setting (or a test pointed at production) cannot
-- move a schedule's next slot. Up to 0007 an admin session with
-- pgq.schedule_now = '2099-01-01' that called q.reap moved every due
-- schedule's next slot to 2099 for good.
begin;
select plan(5);
set local client_min_messages = error;  -- (the ignored setting warns; expected here)

select is((select allowed from q_data.test_clock), false, 'a fresh install has the test clock off');

select q.schedule('nightly', '0 3 * * *', 'clock') \g /dev/null
select next_fire_at as before from q_data.schedule where name = 'nightly' \gset
set local pgq.schedule_now = '2099-01-01Z';
select q.reap() \g /dev/null
select is((select next_fire_at from q_data.schedule where name = 'nightly'), :'before'::timestamptz,
  'an admin''s clock in 2099 moves nothing while the switch is off');
select is((select count(*)::integer from q_data.job), 0, 'and fires nothing early');
reset pgq.schedule_now;

select is(q.allow_test_clock(true), true, 'q.allow_test_clock(true) turns it on');
set local pgq.schedule_now = '2099-01-01Z';
select q.reap() \g /dev/null
select cmp_ok((select next_fire_at from q_data.schedule where name = 'nightly'), '>', '2099-01-01Z'::timestamptz,
  'then an admin''s clock steers the scheduler');

select * from finish();
rollback;
