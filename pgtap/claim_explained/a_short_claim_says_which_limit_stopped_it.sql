-- Why a claim came back short, in its own rows, for a client that reads
-- nothing else (no session setting, no second statement): concurrency and
-- key_concurrency without a time, rate with the time until the next slot
-- frees, paused; an empty claim is one row with the reason and no job.
begin;
select plan(8);

select q.configure('conc', concurrency => 1) \g /dev/null
select q.enqueue('conc', '{}') from generate_series(1, 3) g \g /dev/null
select results_eq($$ select count(id)::integer, min(blocked), min(retry_in) from q.claim_explained('conc', 2) $$,
  $$ values (1, 'concurrency'::text, null::interval) $$,
  'concurrency: one job of two, blocked = concurrency, no retry_in');
select results_eq($$ select id, blocked, retry_in from q.claim_explained('conc', 2) $$,
  $$ values (null::bigint, 'concurrency'::text, null::interval) $$,
  'concurrency, full: one row without a job that says so');

select q.configure('rated', rate => 1, per => '1 minute') \g /dev/null
select q.enqueue('rated', '{}') from generate_series(1, 3) g \g /dev/null
select results_eq($$ select count(id)::integer, min(blocked) from q.claim_explained('rated', 2) $$,
  $$ values (1, 'rate'::text) $$, 'rate: one job of two, blocked = rate');
select ok((select retry_in between interval '59 seconds' and interval '60 seconds'
             from q.claim_explained('rated', 2)),
  'rate, window full: retry_in is the time until the slot frees (about a minute)');

select q.configure('keyed', key_concurrency => 1) \g /dev/null
select q.enqueue('keyed', '{}', concurrency_key => 'a') from generate_series(1, 3) g \g /dev/null
select results_eq($$ select count(id)::integer, min(blocked), min(retry_in) from q.claim_explained('keyed', 3) $$,
  $$ values (1, 'key_concurrency'::text, null::interval) $$,
  'key_concurrency: the key''s one job, blocked = key_concurrency (two held), no retry_in');
select results_eq($$ select id, blocked from q.claim_explained('keyed', 3) $$,
  $$ values (null::bigint, 'key_concurrency'::text) $$,
  'held jobs only: one row that says key_concurrency');

select q.enqueue('stopped', '{}') \g /dev/null
select q.pause('stopped') \g /dev/null
select results_eq($$ select id, blocked, retry_in from q.claim_explained('stopped', 1) $$,
  $$ values (null::bigint, 'paused'::text, null::interval) $$, 'a paused queue says paused');

select results_eq($$ select id, blocked from q.claim_explained('never_used', 1) $$,
  $$ values (null::bigint, null::text) $$, 'a queue nobody used: one empty row, no reason');

select * from finish();
rollback;
