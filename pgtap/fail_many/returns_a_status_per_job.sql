-- fail_many fails each current claim as q.fail would and returns every id
-- with its status: 'retry', 'dead' or 'lost'.
begin;
select plan(4);

select q.enqueue('many', '{"n": "retry"}') as retry_id \gset
select q.enqueue('many', '{"n": "dead"}', max_attempts => 1) as dead_id \gset
select q.enqueue('many', '{"n": "lost"}') as lost_id \gset
create temp table got as select * from q.claim('many', 3);

select results_eq(
  $$ select f.id, f.status from q.fail_many(
       (select array_agg(id order by id) from got),
       (select array_agg(case when payload->>'n' = 'lost' then gen_random_uuid() else token end order by id) from got),
       (select array_agg('error of ' || (payload->>'n') order by id) from got)) f
     order by f.id $$,
  format($$ values (%s::bigint, 'retry'), (%s, 'dead'), (%s, 'lost') $$, :retry_id, :dead_id, :lost_id),
  'each id comes back with its own status');
select is((select errors->0->>'error' from q_data.job where id = :retry_id), 'error of retry', 'each job got its own error message');
select is((select state from q_data.job_history where id = :dead_id), 'dead', 'the dead one is in history');
select is((select state::text from q_data.job where id = :lost_id), 'r', 'the lost one is untouched');

select * from finish();
rollback;
