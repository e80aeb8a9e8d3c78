-- On a fresh install everything is as shipped: q.health has one row per
-- check and object, and nothing above 'ok' but what the server itself says.
-- Changing a table's storage parameters is noticed, with the fix.
begin;
select plan(9);

select set_eq($$ select distinct check_name from q.health() $$,
  $$ values ('server_settings'), ('table_settings'), ('vacuum'), ('bloat'), ('xmin_horizon') $$,
  'q.health runs the five checks');
select set_eq($$ select object from q.health() where check_name = 'vacuum' $$,
  $$ values ('q_data.job'), ('q_data.job_history'), ('q_data.queue'), ('q_data.reaper_turn'), ('q_data.session'), ('q_data.tally'), ('q_data.throughput'),
            ('q_data.throughput_total'), ('q_data.enqueue_receipt'), ('q_data.schedule'), ('q_data.schedule_fire'), ('q_data.queue_slot'),
            ('q_data.key_slot'), ('q_data.key_recheck'), ('q_data.rate_slot'), ('q_data.key_rate_slot'), ('q_data.test_clock'), ('q_data.waiter'),
            ('q_data.job_result'), ('q_data.result_waiter'), ('q_data.server_start'),
            ('q_data.job_dep'), ('q_data.job_dep_ended'), ('q_data.batch'), ('q_data.batch_done') $$,
  'dead rows and (auto)vacuum times for every pgq table');
select ok((select bool_and(detail ? 'dead_rows' and detail ? 'last_autovacuum' and detail ? 'last_autoanalyze')
             from q.health() where check_name = 'vacuum'), 'each vacuum row has dead rows, last autovacuum and autoanalyze');
select set_eq($$ select object, severity from q.health() where check_name = 'table_settings' $$,
  $$ values ('q_data.job', 'ok'), ('q_data.tally', 'ok'), ('q_data.queue_slot', 'ok'), ('q_data.key_slot', 'ok'), ('q_data.rate_slot', 'ok'), ('q_data.key_rate_slot', 'ok') $$,
  'the shipped storage parameters of q_data.job, q_data.tally and the slot tables are recognised (this list matches sql/schema/)');
select ok((select bool_and(severity = 'ok') from q.health() where check_name = 'bloat')
          and exists (select from q.health() where check_name = 'bloat' and object = 'q_data.job_claim_idx'),
  'tables and indexes have a size row; nothing is bloated on a fresh install');
select is((select severity from q.health() where check_name = 'server_settings' and object = 'autovacuum_naptime'),
  case when current_setting('autovacuum_naptime')::interval <= interval '5 seconds' then 'ok' else 'warning' end,
  'autovacuum_naptime is compared with sql/server_settings.sql (5s)');
select ok((select bool_and(severity in ('ok', 'info', 'warning', 'critical') and advice is not null and message <> '')
             from q.health()), 'every row has a known severity, a message and advice ('''' when ok)');

alter table q_data.job set (autovacuum_vacuum_scale_factor = 0.2);
select is((select severity from q.health() where check_name = 'table_settings' and object = 'q_data.job'), 'warning',
  'a changed storage parameter of q_data.job is a warning');
select matches((select advice from q.health() where check_name = 'table_settings' and object = 'q_data.job'),
  'autovacuum_vacuum_scale_factor=0.02', 'whose advice gives the shipped values');

select * from finish();
rollback;
