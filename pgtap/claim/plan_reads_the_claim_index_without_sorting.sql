-- On a large queue, a claim reads the first entries of job_claim_idx and
-- never sorts or scans the table: the plan has no Sort node and no Seq Scan
-- on q_data.job. The statement is taken from q.claim's own source (so this test
-- follows the function), planned generically as q.claim forces
-- (plan_cache_mode = force_generic_plan), after ANALYZE of 50,000 waiting
-- jobs plus neighbours (another queue, scheduled and running jobs).
-- No timing here: speed belongs to `make bench`.
begin;
select plan(11);
\ir ../_helpers.psql

set local pgq.notify = off;
select count(*) from unnest(array[0, 3, 0, -2, 0]) p,
  lateral q.enqueue_many('plan', (select jsonb_agg(jsonb_build_object('i', i)) from generate_series(1, 10000) i), priority => p) \g /dev/null
select count(*) from q.enqueue_many('plan', (select jsonb_agg(i) from generate_series(1, 2000) i), run_at => now() + interval '1 hour') \g /dev/null
select count(*) from q.enqueue_many('neighbour', (select jsonb_agg(i) from generate_series(1, 5000) i)) \g /dev/null
select count(*) from q.claim('plan', 1000) \g /dev/null
select count(*) from q.claim('neighbour', 300) \g /dev/null
analyze q_data.job;

select is((select count(*)::integer from q_data.job j join q_data.queue qq on qq.id = j.queue_id where qq.name = 'plan' and j.state = 'w'),
  49000, '(49,000 waiting jobs left in the queue being claimed, 1,000 running, 2,000 scheduled)');

-- The read-committed claim statement, from q.claim's source, with its
-- PL/pgSQL variables as parameters.
select replace(replace(replace(replace(replace(
         substring(src from s for position('c.id;' in substring(src from s)) + length('c.id') - 1),
         'v_queue.id', '$1'), 'v_wanted', '$2'), 'v_lease_until', '$3'), 'v_owner', '$4'), 'claim.queue', '$5') as claim_sql
  from (select p.prosrc as src, position('with claimed as (' in p.prosrc) as s
          from pg_proc p where p.oid = 'q.claim(text, integer, interval, integer)'::regprocedure) x \gset
select matches(:'claim_sql'::text, '^with claimed as \(\s+update q_data\.job j.*for update skip locked.*returning.*order by',
  'found the claim statement in q.claim''s source');

prepare claim_stmt(integer, integer, timestamptz, integer, text) as :claim_sql;
set local plan_cache_mode = force_generic_plan;
select id as plan_queue_id from q_data.queue where name = 'plan' \gset
select pg_temp.plan_of(format('execute claim_stmt(%s, 10, now(), 1, %L)', :plan_queue_id, 'plan')) as claim_plan \gset

select matches(:'claim_plan'::text, 'Index Scan using job_claim_idx on job', 'the claim reads job_claim_idx');
-- The one Sort puts the claimed rows (at most n) in claim order; the queue
-- itself is read in index order.
select is((select count(*)::integer from regexp_matches(:'claim_plan'::text, 'Sort', 'g')), 2,
  'the claim sorts nothing but its own result (one Sort node and its Sort Key)');
select matches(:'claim_plan'::text, 'Sort\s+Sort Key: c\.priority DESC, c\.run_at, c\.id\s+CTE claimed',
  'that Sort is over the claimed rows (the CTE), not over the queue');
select doesnt_match(:'claim_plan'::text, 'Seq Scan', 'the claim never scans q_data.job sequentially');
select matches(:'claim_plan'::text, 'LockRows', 'the claim locks rows as it reads them (FOR UPDATE SKIP LOCKED)');
select matches(:'claim_plan'::text, 'Tid Scan on job', 'the claimed rows are updated in place by ctid, no other index');

-- The REPEATABLE READ path (q.claim_under_snapshot) walks the same index in
-- a cursor loop.
select pg_temp.plan_of(format(
  'declare c cursor for select j.ctid from q_data.job j where j.queue_id = %s and j.state = ''w'' order by j.priority desc, j.run_at',
  :plan_queue_id)) as snapshot_plan \gset
select matches(:'snapshot_plan'::text, 'Index Scan using job_claim_idx on job', 'the snapshot path reads job_claim_idx');
select doesnt_match(:'snapshot_plan'::text, 'Sort', 'the snapshot path never sorts');
select matches((select prosrc from pg_proc where oid = 'q.claim_under_snapshot'::regproc),
  'where j.queue_id = claim_under_snapshot.queue_id\s+and j.state = ''w''\s+order by j.priority desc, j.run_at',
  '(the snapshot path''s loop query is the one planned above)');

select * from finish();
rollback;
