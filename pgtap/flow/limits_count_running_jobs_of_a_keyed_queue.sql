-- q.limits's running is the queue's running jobs also when the queue has no
-- concurrency limit (design.md#held-jobs-are-visible: the Limits page said "running 0 /
-- unlimited" while jobs of a keyed queue ran); with one, the slots taken.
begin;
select plan(2);

select q.configure('keyed', key_concurrency => 2) \g /dev/null
select q.enqueue('keyed', '{}', concurrency_key => 't' || g % 3) from generate_series(1, 6) g \g /dev/null
select count(*) from q.claim('keyed', 4) \g /dev/null
select is((select running from q.limits('keyed')), 4, 'a keyed queue without a concurrency limit: its 4 running jobs');

select q.configure('capped', concurrency => 3) \g /dev/null
select q.enqueue('capped', '{}') from generate_series(1, 5) g \g /dev/null
select count(*) from q.claim('capped', 5) \g /dev/null
select is((select running from q.limits('capped')), 3, 'a queue with concurrency 3: the 3 slots taken');

select * from finish();
rollback;
