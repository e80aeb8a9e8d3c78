-- q.reap deletes the edges of a child that ended longer ago than its queue's
-- retention (and the child's q_data.job_dep_ended row), and fired batches
-- older than their callback queue's retention with their members' rows;
-- edges of live children, open batches and recent ones stay. Bounded by
-- max_rows. (Before, nothing deleted them: every edge and batch ever made
-- stayed.)
begin;
select plan(11);

select q.configure('dep_brief', retention => '0') \g /dev/null
select q.configure('dep_brief_cb', retention => '0') \g /dev/null

-- dep_brief: a -> b, both completed. dep_kept (7 days): c -> d, both completed;
-- e -> f with e running (f pending); g -> h with g completed, h waiting.
select id as a from q.enqueue_flow('[{"ref": "a", "queue": "dep_brief", "payload": {}},
  {"ref": "b", "queue": "dep_brief", "payload": {}, "after": ["a"]}]') where ref = 'a' \gset
select id, token from q.claim('dep_brief') \gset
select q.complete(:id, :'token') \g /dev/null
select id, token from q.claim('dep_brief') \gset
select q.complete(:id, :'token') \g /dev/null
select id as d from q.enqueue_flow('[{"ref": "c", "queue": "dep_kept", "payload": {}},
  {"ref": "d", "queue": "dep_kept", "payload": {}, "after": ["c"]}]') where ref = 'd' \gset
select id, token from q.claim('dep_kept') \gset
select q.complete(:id, :'token') \g /dev/null
select id, token from q.claim('dep_kept') \gset
select q.complete(:id, :'token') \g /dev/null
select id as f from q.enqueue_flow('[{"ref": "e", "queue": "dep_live", "payload": {}},
  {"ref": "f", "queue": "dep_live", "payload": {}, "after": ["e"]}]') where ref = 'f' \gset
select id as running, token as running_token from q.claim('dep_live') \gset
select id as h from q.enqueue_flow('[{"ref": "g", "queue": "dep_wait", "payload": {}},
  {"ref": "h", "queue": "dep_wait", "payload": {}, "after": ["g"]}]') where ref = 'h' \gset
select id, token from q.claim('dep_wait') \gset
select q.complete(:id, :'token') \g /dev/null

select is((select count(*)::integer from q_data.job_dep_ended), 2, 'the two children that ended are recorded (b and d)');

-- Batches: one fired into dep_brief_cb (retention 0), one fired into dep_kept_cb
-- (7 days), one never sealed.
select q.create_batch('dep_brief_cb', '{}') as b1 \gset
select q.enqueue_after('dep_members', '{}', '{}', batch => :b1) \g /dev/null
select q.enqueue_after('dep_members', '{}', '{}', batch => :b1) \g /dev/null
select q.seal_batch(:b1) \g /dev/null
select q.create_batch('dep_kept_cb', '{}') as b2 \gset
select q.enqueue_after('dep_members', '{}', '{}', batch => :b2) \g /dev/null
select q.seal_batch(:b2) \g /dev/null
select q.create_batch('dep_kept_cb', '{}') as b3 \gset
select q.enqueue_after('dep_members', '{}', '{}', batch => :b3) \g /dev/null
select q.complete(id, token) from q.claim('dep_members', 10) \g /dev/null
select is((select count(*)::integer from q_data.batch where fired_at is not null), 2, '(two batches fired)');

select q.reap() \g /dev/null
select is((select count(*)::integer from q_data.job_dep where child_id = :a + 1), 0,
          'retention 0: the edges of an ended child go on the next reap');
select is((select count(*)::integer from q_data.job_dep_ended where child_id = :a + 1), 0, '... and its record');
select is((select count(*)::integer from q_data.job_dep where child_id in (:d, :f, :h)), 3,
          'a recently ended child, a pending child and a waiting child keep their edges');
select is((select count(*)::integer from q_data.batch where id = :b1), 0,
          'a fired batch of a retention-0 callback queue goes');
select is((select count(*)::integer from q_data.batch_done where batch_id = :b1), 0, '... with its members'' rows');
select is((select count(*)::integer from q_data.batch where id in (:b2, :b3)), 2,
          'a recently fired batch and an unsealed one stay');

-- Eight days later for dep_kept (7 days): d's edge and b2 go.
update q_data.job_dep_ended set ended_at = ended_at - interval '8 days' where child_id = :d;
update q_data.batch set fired_at = fired_at - interval '8 days', created_at = created_at - interval '8 days' where id = :b2;
select q.reap() \g /dev/null
select is((select count(*)::integer from q_data.job_dep where child_id = :d), 0,
          'default 7 days: the edges of a child that ended 8 days ago go');
select is((select count(*)::integer from q_data.batch where id = :b2), 0,
          'default 7 days: a batch fired 8 days ago goes');

-- Bounded: a child with 3 parents, past its retention, loses at most max_rows edges per call.
select id as k from q.enqueue_flow('[{"ref": "p1", "queue": "dep_brief", "payload": {}},
  {"ref": "p2", "queue": "dep_brief", "payload": {}}, {"ref": "p3", "queue": "dep_brief", "payload": {}},
  {"ref": "k", "queue": "dep_brief", "payload": {}, "after": ["p1", "p2", "p3"]}]') where ref = 'k' \gset
select q.complete(id, token) from q.claim('dep_brief', 3) \g /dev/null
select q.complete(id, token) from q.claim('dep_brief', 1) \g /dev/null
select is(q.purge_deps(2, clock_timestamp()), 2, 'max_rows 2: two of the three edges');
select * from finish();
rollback;
