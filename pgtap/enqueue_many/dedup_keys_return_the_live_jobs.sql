-- dedup_keys: one key per element (NULL = none). An element whose key a
-- waiting, scheduled or running job of the queue holds gets that job's id
-- instead of a new job, as q.enqueue's dedup_key does; a key repeated within
-- the call answers with the job the call made for its first use.
begin;
select plan(5);

select q.enqueue('dk', '"old"', dedup_key => 'a') as old_id \gset
select array_agg(id order by ord) as ids from q.enqueue_many('dk', '["a1", "b", "none", "b2"]',
  dedup_keys => array['a', 'b', null, 'b']) with ordinality as t(id, ord) \gset

select is((:'ids'::bigint[])[1], :old_id::bigint, 'an element whose key a live job holds gets that job''s id');
select isnt((:'ids'::bigint[])[2], :old_id::bigint, 'a new key makes a new job');
select is((:'ids'::bigint[])[4], (:'ids'::bigint[])[2], 'a key repeated in the call answers with the first one''s job');
select is((select count(*)::integer from q_data.job), 3, 'three jobs in all: the old one, b and the one without a key');
select is((select array_agg(payload #>> '{}' order by id) from q_data.job), array['old', 'b', 'none'],
  'the jobs kept are the old one, the first "b" and the one without a key');

select * from finish();
rollback;
