-- One q.enqueue_many call carries at most 64 MiB of payloads (54000 beyond,
-- nothing written): 0007 took 250 payloads of 1 MiB in one call, 36 s at a
-- 1.29 GB backend peak.
begin;
select plan(3);

select throws_ok(
  $$ select q.enqueue_many('budget', (select jsonb_agg(repeat(chr(97 + g % 26), 1000000)) from generate_series(1, 70) g)) $$,
  '54000', null, '70 payloads of 1 MB in one call are refused (54000)');
select is((select count(*)::integer from q_data.job), 0, 'nothing written');
select is((select count(*)::integer from q.enqueue_many('budget',
            (select jsonb_agg(repeat(chr(97 + g % 26), 1000000)) from generate_series(1, 60) g))), 60,
  '60 of them fit');

select * from finish();
rollback;
