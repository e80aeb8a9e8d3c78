-- Bulk admin and flow control: q.retry_dead gives a job back its
-- concurrency key (so it waits for its key's slot, as q.retry does),
-- q.cancel_jobs(state => 'waiting') and q.purge take held jobs too, and
-- what they delete frees its key slot.
begin;
select plan(7);

select q.configure('bk', key_concurrency => 1, max_attempts => 1) \g /dev/null
select q.enqueue('bk', '{"n": 1}', concurrency_key => 'a') as dead_id \gset
select id as claimed_id, token from q.claim('bk') \gset
select q.fail(:claimed_id, :'token', 'boom') \g /dev/null
select q.enqueue('bk', '{"n": 2}', concurrency_key => 'a') as live_id \gset

select is((select retried from q.retry_dead('bk')), 1, 'retry_dead retries the dead keyed job');
select is((select concurrency_key || ':' || state::text from q_data.job where id = :dead_id), 'a:h',
  'with its concurrency key: held behind the key''s admitted job');

select is((select cancelled from q.cancel_jobs('bk', state => 'waiting')), 2,
  'cancel_jobs(state => waiting) cancels the admitted and the held job of the key');
select is((select count(*)::integer from q_data.job where queue_id = (select id from q_data.queue where name = 'bk')), 0,
  'nothing of the queue is left');
select is((select count(*)::integer from q_data.key_slot s join q_data.queue qq on qq.id = s.queue_id
            where qq.name = 'bk' and s.job_id is not null), 0, 'and the key''s slot is free again');

select q.enqueue('bk', jsonb_build_object('n', g), concurrency_key => 'b') from generate_series(1, 3) g \g /dev/null
select is((select purged from q.purge('bk')), 3, 'purge deletes the admitted and the held jobs');
select is((select count(*)::integer from q_data.key_slot s join q_data.queue qq on qq.id = s.queue_id
            where qq.name = 'bk' and s.job_id is not null), 0, 'and frees the key slot');

select * from finish();
rollback;
