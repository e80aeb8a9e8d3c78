-- Every claim gets its own token: jobs claimed together have different
-- tokens, and the same job claimed again gets a new one.
begin;
select plan(5);

select count(*) from q.enqueue_many('claim', (select jsonb_agg(i) from generate_series(1, 50) i)) \g /dev/null
create temp table got as select * from q.claim('claim', 50);

select is((select count(distinct token)::integer from got), 50, '50 jobs claimed together have 50 tokens');
select is((select count(*)::integer from got g join q_data.job j on j.id = g.id and j.token = g.token), 50,
  'the returned token is the one stored with the job');
select is((select count(*)::integer from got where token is null), 0, 'no claim comes without a token');

select id as job_id, token as first_token from got order by id limit 1 \gset
select q.fail(:job_id, :'first_token', 'again', retry_in => '0') \g /dev/null
select token as second_token from q.claim('claim', 1) \gset
select isnt(:'second_token'::uuid, :'first_token'::uuid, 'the same job claimed again gets a new token');
select is((select token from q_data.job where id = :job_id), :'second_token'::uuid, 'only the newest token is stored');

select * from finish();
rollback;
