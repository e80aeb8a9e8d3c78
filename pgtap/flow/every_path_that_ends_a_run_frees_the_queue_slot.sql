-- complete, fail (retry and dead), release, release_many, cancel and a
-- reaped lease each give the queue slot back in their own transaction; a
-- reaped job claimed again holds exactly one slot (never counted twice).
-- (No trigger does it for the updates since revision 0012: each calls
-- q.flow_free_queue_slot.)
begin;
select plan(10);

select (q.configure('paths', concurrency => 1, max_crashes => 5)).concurrency as c \gset
select q.enqueue('paths', jsonb_build_object('i', g)) from generate_series(1, 8) g \g /dev/null

create function pg_temp.free_slots() returns integer language sql as $$
  select count(*)::integer from q_data.queue_slot s join q_data.queue qq on qq.id = s.queue_id
   where qq.name = 'paths' and s.job_id is null $$;

select id, token from q.claim('paths') \gset
select q.complete(:id, :'token') \g /dev/null
select is(pg_temp.free_slots(), 1, 'complete frees the slot');

select id, token from q.claim('paths') \gset
select q.fail(:id, :'token', 'boom') \g /dev/null
select is(pg_temp.free_slots(), 1, 'fail with a retry left frees the slot');

select id, token from q.claim('paths') \gset
select q.fail(:id, :'token', 'boom', retryable => false) \g /dev/null
select is(pg_temp.free_slots(), 1, 'fail to dead frees the slot');

select id, token from q.claim('paths') \gset
select q.release(:id, :'token') \g /dev/null
select is(pg_temp.free_slots(), 1, 'release frees the slot');

select id, token from q.claim('paths') \gset
select is((select count(*)::integer from q.release_many(array[:id], array[:'token']::uuid[])), 1, 'release_many releases it');
select is(pg_temp.free_slots(), 1, 'release_many frees the slot');

select id, token from q.claim('paths') \gset
select q.cancel(:id) \g /dev/null
select is(pg_temp.free_slots(), 1, 'cancel of a running job frees the slot');

select id as lost_id, token from q.claim('paths', lease => '1 minute', owner => 0) \gset
update q_data.job set lease_until = now() - interval '1 second' where id = :lost_id;
select q.reap() \g /dev/null
select is(pg_temp.free_slots(), 1, 'a lease run out and reaped frees the slot');
select is((select id from q.claim('paths')), :lost_id::bigint, 'the reaped job is claimed again');
select is((select count(*)::integer from q_data.queue_slot s join q_data.queue qq on qq.id = s.queue_id
            where qq.name = 'paths' and s.job_id = :lost_id), 1, 'and holds one slot, not two');

select * from finish();
rollback;
