-- One key at its rate with 500 admitted jobs: the claim that meets them
-- puts them off once, and later claims of other keys' jobs no longer see
-- them (they are out of the claim index) and do not put them off again.
begin;
select plan(4);

select q.configure('kb', key_concurrency => 1000, key_rate => 1, key_per => '1 hour') \g /dev/null
select q.enqueue('kb', jsonb_build_object('big', g), concurrency_key => 'big') from generate_series(1, 500) g \g /dev/null

select is((select count(*)::integer from q.claim('kb', 10)), 1, 'the big key starts one job');
select is((select count(*)::integer from q_data.job where rate_wait), 499, 'its other 499 are put off by that claim');
select q.enqueue('kb', jsonb_build_object('small', g), concurrency_key => 's' || g) from generate_series(1, 10) g \g /dev/null
select n_tup_upd as before from pg_stat_xact_user_tables where relid = 'q_data.job'::regclass \gset
select is((select count(*)::integer from q.claim('kb', 10)), 10, 'ten small keys start at once');
select is((select n_tup_upd from pg_stat_xact_user_tables where relid = 'q_data.job'::regclass) - :before, 10::bigint,
  'that claim wrote the 10 jobs it started and none of the big key''s');

select * from finish();
rollback;
