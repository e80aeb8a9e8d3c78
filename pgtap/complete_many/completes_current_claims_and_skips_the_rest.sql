-- complete_many completes the pairs that are current claims, returns their
-- ids, and leaves the others (wrong token, unknown id) alone.
begin;
select plan(5);

select q.configure('kept', keep_completed => true) \g /dev/null
select count(*) from q.enqueue_many('many', '[1, 2, 3, 4]') \g /dev/null
select count(*) from q.enqueue_many('kept', '[5]') \g /dev/null
create temp table got as select * from q.claim('many', 4) union all select * from q.claim('kept', 1);
select id as bad_id from got where payload = '4' \gset

select results_eq(
  $$ select c from q.complete_many(
       (select array_agg(id order by id) from got) || 999999999::bigint,
       (select array_agg(case when payload = '4' then gen_random_uuid() else token end order by id) from got) || gen_random_uuid()) c
     order by c $$,
  $$ select id from got where payload <> '4' order by id $$,
  'the ids of the current claims are returned; a wrong token and an unknown id are not');
select is((select count(*)::integer from q_data.job where id in (select id from got)), 1, 'only the job with the wrong token is left');
select is((select state::text from q_data.job where id = :bad_id), 'r', 'and it is still running');
select is((select count(*)::integer from q_data.job_history where state = 'completed'), 1, 'keep_completed is honoured per queue');
select is((select count(*)::integer from q.complete_many('{}', '{}')), 0, 'empty arrays complete nothing');

select * from finish();
rollback;
