-- q.parent_results(child): the q.results row of each parent, in id order, so a
-- child's handler reads its inputs in one call; a parent that died gives its
-- last error (run policy), and a job without parents gives no rows.
begin;
select plan(4);
\ir ../_helpers.psql

select q.enqueue('pr_a', '{"p": 1}') as p1 \gset
select q.enqueue('pr_a', '{"p": 2}') as p2 \gset
select q.configure('pr_a', max_attempts => 1) \g /dev/null
select q.enqueue_after('pr_b', '{"child": true}', array[:p1, :p2], on_parent_failure => 'run') as child \gset

select q.complete(c.id, c.token, '{"sum": 41}') from q.claim('pr_a') c where c.id = :p1 \g /dev/null
select q.fail(c.id, c.token, 'no input') from q.claim('pr_a') c where c.id = :p2 \g /dev/null

select results_eq(
  format($$ select id, state, result, last_error from q.parent_results(%s) $$, :child),
  format($$ values (%s::bigint, 'completed', '{"sum": 41}'::jsonb, null::text), (%s::bigint, 'dead', null::jsonb, 'no input') $$,
         :p1, :p2),
  'one row per parent, in id order: the completed one with its result, the dead one with its last error');
select is((select state from q.jobs(id => :child)), 'waiting', '(the run policy let the child go on)');
select is((select count(*)::integer from q.parent_results(:p1)), 0, 'a job without parents has no parent results');

set local role pgq_viewer;
select throws_ok(format('select * from q.parent_results(%s)', :child), '42501', null,
                 'only workers read parent results');
reset role;

select * from finish();
rollback;
