-- The flow-control hook: when q.flow_block_reason(job_id) exists (the flow
-- control revision installs it), its rows join q.explain's; without it no
-- limit reason is reported. A stand-in function plays that revision here and
-- vanishes with the rollback.
begin;
select plan(3);

select q.enqueue('fl', '{}') as job_id \gset
select is((select count(*)::integer from q.explain(:job_id) where code in ('concurrency', 'key_concurrency', 'rate')), 0,
  'without flow control: no limit reason');

create function q.flow_block_reason(job_id bigint) returns table (code text, reason text)
language sql stable set search_path = pg_catalog, pg_temp
as $$ select 'concurrency'::text, format('all 2 slots of queue fl are taken (job %s waits)', job_id) $$;

select results_eq(format('select code, message, detail from q.explain(%s) order by code', :job_id),
  format($$ values ('concurrency', 'all 2 slots of queue fl are taken (job %s waits)', '{"limit": "concurrency"}'::jsonb),
                   ('ready', (select message from q.explain(%s) where code = 'ready'), (select detail from q.explain(%s) where code = 'ready')) $$,
         :job_id, :job_id, :job_id),
  'with it: the limit reason is a row of its own, beside the others');
select throws_ok('select * from q.explain(null)', '22004', null, '(the hook does not change input checks)');

select * from finish();
rollback;
