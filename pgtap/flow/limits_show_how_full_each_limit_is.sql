-- q.limits(): every limited queue with its limits and how full they are now;
-- a queue without limits is not listed.
begin;
select plan(10);

select q.configure('lim', concurrency => 2, key_concurrency => 1) \g /dev/null
select q.configure('lim_rate', rate => 2, per => '1 hour') \g /dev/null
select q.ensure_queue('lim_free') \g /dev/null
select q.enqueue('lim', jsonb_build_object('i', g), concurrency_key => 'k' || (g % 2)) from generate_series(1, 5) g \g /dev/null
select q.enqueue('lim_rate', jsonb_build_object('i', g)) from generate_series(1, 3) g \g /dev/null
select count(*) from q.claim('lim', 5) \g /dev/null
select count(*) from q.claim('lim_rate', 5) \g /dev/null

select is((select array_agg(queue order by queue) from q.limits()), array['lim', 'lim_rate'],
  'only queues with a limit are listed');
select is((select running from q.limits('lim')), 2, 'running: the two jobs holding a concurrency slot');
select is((select busy_keys from q.limits('lim')), 2, 'busy_keys: both keys hold their one slot');
select is((select held from q.limits('lim')), 3::bigint, 'held: the three jobs waiting for their key');
select is((select (concurrency, key_concurrency, ordered) from q.limits('lim')), (2, 1, false),
  'the limits as configured');
select is((select started_in_window from q.limits('lim_rate')), 2, 'started_in_window: two starts this hour');
select ok((select next_start_at between now() + interval '59 minutes' and clock_timestamp() + interval '1 hour'
             from q.limits('lim_rate')),
  'a full window says when the next start is allowed (an hour after the first start)');
select is((select next_start_at from q.limits('lim')), null, 'no rate, no next start');
select is((select count(*)::integer from q.jobs('lim', 'waiting')), 3, 'q.jobs lists held jobs as waiting (not running)');

set local role pgq_worker;
select throws_ok($$ select * from q.limits() $$, '42501', null, 'a worker may not read the limits (admin only)');
reset role;

select * from finish();
rollback;
