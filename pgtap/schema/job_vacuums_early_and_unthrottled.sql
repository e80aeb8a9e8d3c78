-- The hot table carries the seed's autovacuum storage parameters, so dead
-- claim-index entries are cleaned at 2% churn instead of 20%, unthrottled.
begin;
select plan(4);

select ok((select 'autovacuum_vacuum_scale_factor=0.02' = any(c.reloptions) from pg_class c where c.oid = 'q_data.job'::regclass),
  'q_data.job vacuums at 2% dead rows (autovacuum_vacuum_scale_factor = 0.02)');
select ok((select 'autovacuum_vacuum_threshold=1000' = any(c.reloptions) from pg_class c where c.oid = 'q_data.job'::regclass),
  'q_data.job vacuum threshold is 1000 rows');
select ok((select 'autovacuum_vacuum_cost_delay=0' = any(c.reloptions) from pg_class c where c.oid = 'q_data.job'::regclass),
  'q_data.job is vacuumed without cost-based throttling (autovacuum_vacuum_cost_delay = 0)');
select ok((select not exists (select from pg_index i where i.indrelid = c.oid and i.indisprimary)
             from pg_class c where c.oid = 'q_data.job'::regclass)
          and (select c.relreplident = 'f' from pg_class c where c.oid = 'q_data.job'::regclass),
  'q_data.job has no primary-key index (one index entry per waiting job) and replica identity full instead');

select * from finish();
rollback;
