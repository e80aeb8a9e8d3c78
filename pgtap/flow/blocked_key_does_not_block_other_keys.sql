-- One key with a long backlog whose slot is taken costs the claim of other
-- keys nothing: held jobs are outside the claim index (pg-boss PR #871).
begin;
select plan(3);

select (q.configure('fair', ordered => true)).ordered as o \gset
select q.enqueue('fair', jsonb_build_object('big', g), concurrency_key => 'big') from generate_series(1, 2000) g \g /dev/null
select q.enqueue('fair', jsonb_build_object('small', g), concurrency_key => 's' || g) from generate_series(1, 20) g \g /dev/null

select is((select count(*)::integer from q_data.job where state = 'w'), 21, 'one admitted job per key, 1999 of the big key held');
select is((select count(*)::integer from q.claim('fair', 100)), 21, 'a claim gets every key''s head job');
select is((select count(*)::integer from q_data.job where state = 'w'), 0, 'and nothing claimable remains');

select * from finish();
rollback;
