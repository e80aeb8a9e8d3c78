-- heartbeat_many extends every current claim and returns each id with
-- 'running', 'cancelled' or 'lost'.
begin;
select plan(3);

select q.enqueue('beats', '{"n": "running"}') as running_id \gset
select q.enqueue('beats', '{"n": "cancelled"}') as cancelled_id \gset
select q.enqueue('beats', '{"n": "lost"}') as lost_id \gset
create temp table got as select * from q.claim('beats', 3, lease => '1 minute');
select q.cancel(:cancelled_id) \g /dev/null

select results_eq(
  $$ select h.id, h.status from q.heartbeat_many(
       (select array_agg(id order by id) from got),
       (select array_agg(case when payload->>'n' = 'lost' then gen_random_uuid() else token end order by id) from got),
       lease => '1 hour') h
     order by h.id $$,
  format($$ values (%s::bigint, 'running'), (%s, 'cancelled'), (%s, 'lost') $$, :running_id, :cancelled_id, :lost_id),
  'each id comes back with its own status');
select ok((select lease_until > clock_timestamp() + interval '59 minutes' from q_data.job where id = :running_id),
  'the running claim''s lease was extended');
select ok((select lease_until < clock_timestamp() + interval '1 minute' from q_data.job where id = :lost_id),
  'the lost one''s lease was not');

select * from finish();
rollback;
