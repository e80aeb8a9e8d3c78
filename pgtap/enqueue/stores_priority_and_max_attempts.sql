-- priority and max_attempts are stored with the job; the defaults are
-- priority 0 and NULL max_attempts (= the queue's setting).
begin;
select plan(6);

select q.enqueue('enq', '{}', priority => 7, max_attempts => 2) as custom_id \gset
select q.enqueue('enq', '{}') as default_id \gset
select q.enqueue('enq', '{}', priority => -32768) as lowest_id \gset
select q.enqueue('enq', '{}', priority => 32767) as highest_id \gset

select is((select priority::integer from q_data.job where id = :custom_id), 7, 'priority is stored');
select is((select max_attempts::integer from q_data.job where id = :custom_id), 2, 'max_attempts is stored');
select is((select priority::integer from q_data.job where id = :default_id), 0, 'priority defaults to 0');
select is((select max_attempts from q_data.job where id = :default_id), null, 'max_attempts defaults to NULL (the queue decides)');
select is((select priority::integer from q_data.job where id = :lowest_id), -32768, 'the lowest priority is accepted');
select is((select priority::integer from q_data.job where id = :highest_id), 32767, 'the highest priority is accepted');

select * from finish();
rollback;
