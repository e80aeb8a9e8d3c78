-- The enqueue notification comes from one statement-level AFTER INSERT
-- trigger with a transition table: one NOTIFY per queue per statement.
begin;
select plan(5);

select triggers_are('q_data', 'job',
  array['_100_flow_admit_inserted', '_900_notify_enqueued'],
  'q_data.job has _900_notify_enqueued and one row trigger (pgtap/flow/flow_triggers_exist_from_install.sql)');
select trigger_is('q_data', 'job', '_900_notify_enqueued', 'q', 'tg_job__notify_enqueued',
  '_900_notify_enqueued calls q.tg_job__notify_enqueued()');
-- tgtype bits: 1 = row, 2 = before, 4 = insert, 8 = delete, 16 = update, 64 = instead.
select is((select t.tgtype::integer from pg_trigger t where t.tgrelid = 'q_data.job'::regclass and t.tgname = '_900_notify_enqueued'),
  4, 'the trigger fires AFTER INSERT, FOR EACH STATEMENT, on nothing else');
select is((select t.tgnewtable::text from pg_trigger t where t.tgrelid = 'q_data.job'::regclass and t.tgname = '_900_notify_enqueued'),
  'inserted', 'the trigger sees the statement''s rows as the transition table "inserted"');
select is((select t.tgenabled::text from pg_trigger t where t.tgrelid = 'q_data.job'::regclass and t.tgname = '_900_notify_enqueued'),
  'O', 'the trigger is enabled');

select * from finish();
rollback;
