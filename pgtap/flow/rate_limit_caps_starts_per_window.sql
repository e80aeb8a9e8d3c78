-- rate 3 per 1 hour: 3 starts, then nothing until a slot's last use is an
-- hour old; the claim says rate and when to come back; the window slides by slot.
begin;
select plan(7);

select q.configure('rl', rate => 3, per => '1 hour') \g /dev/null
select q.enqueue('rl', jsonb_build_object('i', g)) from generate_series(1, 6) g \g /dev/null

select is((select count(*)::integer from q.claim('rl', 10)), 3, 'three starts');
select is(current_setting('pgq.claim_blocked', true), 'rate', 'a claim the rate cut short says so too');
select is((select count(*)::integer from q.claim('rl', 10)), 0, 'then none');
select is(current_setting('pgq.claim_blocked', true), 'rate', 'pgq.claim_blocked says rate');
select ok(current_setting('pgq.claim_retry_in', true)::float8 between 3500 and 3600,
  'pgq.claim_retry_in says when the oldest start leaves the window (about an hour)');
update q_data.rate_slot set used_at = used_at - interval '1 hour' where n = (select min(n) from q_data.rate_slot);
select is((select count(*)::integer from q.claim('rl', 10)), 1, 'one slot an hour old: one more start');
select is((select count(*)::integer from q_data.job where state = 'w'), 2, 'the rest wait (never failed, no attempt counted)');

select * from finish();
rollback;
