-- q.job_page lists one state's jobs in index order, a page at a time: the
-- last row's next_after gives the next page with no row twice and none
-- missed, ties on run_at included; search filters within a scan budget.
begin;
select plan(12);

-- Ties: enqueue_many gives the same run_at to a batch.
select count(*) from q.enqueue_many('jp', '[1, 2, 3, 4, 5]') \g /dev/null
select count(*) from q.enqueue_many('jp', '[{"to": "ada"}, 7]', priority => 5) \g /dev/null
select q.enqueue('jp', '{"n": 8}', run_at => clock_timestamp() + interval '1 hour') \g /dev/null

create temp table seen (page integer, id bigint, after jsonb);
insert into seen select 1, p.id, p.next_after from q.job_page('jp', 'waiting', page_size => 3) p;
select set_eq($$ select id from seen where page = 1 $$,
  $$ select id from q_data.job j where j.state = 'w' order by j.priority desc, j.run_at, j.id limit 3 $$,
  'page 1: the first three in claim order');
create temp table walked as
  with recursive pages (n, rows, last) as (
    select 1, array(select p.id from q.job_page('jp', 'waiting', page_size => 2) p),
           (select p.next_after from q.job_page('jp', 'waiting', page_size => 2) p offset 1 limit 1)
    union all
    select n + 1, array(select p.id from q.job_page('jp', 'waiting', after => last, page_size => 2) p),
           (select p.next_after from q.job_page('jp', 'waiting', after => last, page_size => 2) p offset 1 limit 1)
      from pages where last is not null and n < 10
  )
  select n, unnest(rows) as id from pages;
select results_eq($$ select id from walked order by n, id $$,
  $$ select id from (select j.id, row_number() over (order by j.priority desc, j.run_at, j.id) as k
                       from q_data.job j where j.state = 'w') x order by (k + 1) / 2, id $$,
  'walking pages of 2 visits every waiting job once, in claim order');
select is((select count(*)::integer from walked), 7, 'all seven waiting jobs, no duplicates');
select is((select count(distinct id)::integer from walked), 7, '(distinct)');

select results_eq($$ select state, payload from q.job_page('jp', 'scheduled') $$,
  $$ values ('scheduled', '{"n": 8}'::jsonb) $$, 'scheduled jobs by due time');
select results_eq($$ select payload from q.job_page('jp', 'waiting', search => 'ADA') $$,
  $$ values ('{"to": "ada"}'::jsonb) $$, 'search finds text in the payload, case-insensitive');
select results_eq($$ select id is null, next_after is not null from q.job_page('jp', 'waiting', search => 'nothing', max_scan => 3) $$,
  $$ values (true, true) $$, 'a search whose budget runs out returns one row with id NULL and where to go on');

select q.enqueue('jp2', '{}', max_attempts => 1) \g /dev/null
select q.fail(id, token, 'Connection refused by smtp') from q.claim('jp2') \g /dev/null
select results_eq($$ select queue, state, last_error from q.job_page(null, 'dead') $$,
  $$ values ('jp2', 'dead', 'Connection refused by smtp') $$, 'dead jobs of every queue, with the last error');
select results_eq($$ select count(*)::integer from q.job_page('jp2', 'dead', search => 'refused') $$,
  $$ values (1) $$, 'search looks in the errors too');

select throws_ok($$ select * from q.job_page(null, 'waiting') $$, '22023', null, 'waiting needs a queue (22023)');
select throws_ok($$ select * from q.job_page('jp', 'lost') $$, '22023', null, 'an unknown state: 22023');
select throws_ok($$ select * from q.job_page('jp', 'waiting', page_size => 0) $$, '22023',
  'page_size must be between 1 and 1000, got 0', 'page_size 0: 22023');

select * from finish();
rollback;
