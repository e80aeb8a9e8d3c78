-- Each job a schedule enqueues carries the schedule's payload plus
-- "schedule" (its name) and "slot": the 1 MiB cap counts them, so a schedule
-- cannot fire jobs past the cap (0007 checked the payload alone).
begin;
select plan(2);

-- A payload just under the cap on its own, over it with the two keys.
select throws_ok(
  format($$ select q.schedule('big', '* * * * *', 'clock', jsonb_build_object('x', repeat('a', %s))) $$,
         1048576 - 4 - pg_column_size(jsonb_build_object('x', ''))),
  '54000', null, 'a payload at the cap with the added keys over it is refused (54000)');
select lives_ok(
  format($$ select q.schedule('fits', '* * * * *', 'clock', jsonb_build_object('x', repeat('a', %s))) $$,
         1048576 - 200 - pg_column_size(jsonb_build_object('x', ''))),
  'one that fits with the keys is accepted');

select * from finish();
rollback;
