-- One reaper at a time: while another session's reap holds the turn (a row
-- lock on q_data.reaper_turn), reap returns 0 at once and touches nothing. A
-- second session is needed (dblink), which locks the row as q.reap does.
begin;
select plan(4);
\ir ../_helpers.psql
create extension if not exists dblink;

select q.enqueue('turn', '{}') as job_id \gset
select q.claim('turn', 1, lease => '1 millisecond', owner => 0) \g /dev/null
select pg_sleep(0.05) \g /dev/null

select dblink_connect('other_reaper', pg_temp.peer_conninfo()) \g /dev/null
select dblink_exec('other_reaper', 'begin') \g /dev/null
select * from dblink('other_reaper', 'select true from q_data.reaper_turn for update') as t(x boolean) \g /dev/null

select is(q.reap(), 0, 'reap returns 0 while another session holds the reaper''s turn');
select is((select state::text from q_data.job where id = :job_id), 'r', 'the expired claim was not touched');

select dblink_exec('other_reaper', 'rollback') \g /dev/null
select is(q.reap(), 1, 'once the other reaper is done, reap does the work');
select is((select state::text from q_data.job where id = :job_id), 'w', 'the expired claim is back to waiting');
select dblink_disconnect('other_reaper') \g /dev/null

select * from finish();
rollback;
