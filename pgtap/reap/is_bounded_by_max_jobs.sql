-- reap recovers at most max_jobs claims per call; the next call takes the rest.
begin;
select plan(3);

select count(*) from q.enqueue_many('bounded', '[1, 2, 3]') \g /dev/null
select count(*) from q.claim('bounded', 3, lease => '1 millisecond', owner => 0) \g /dev/null
select pg_sleep(0.05) \g /dev/null

select is(q.reap(max_jobs => 2), 2, 'max_jobs => 2 recovers two of three expired claims');
select is((select count(*)::integer from q_data.job where state = 'r'), 1, 'one is left for the next call');
select is(q.reap(max_jobs => 2), 1, 'the next call recovers it');

select * from finish();
rollback;
