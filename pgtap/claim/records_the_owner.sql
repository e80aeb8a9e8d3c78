-- The claim records whose liveness proves the job is in hand: this
-- session's key by default (taken and locked on first use), none with
-- owner => 0 (lease only), or a key passed explicitly.
begin;
select plan(5);

select count(*) from q.enqueue_many('claim', '[1, 2, 3]') \g /dev/null

select id as default_id from q.claim('claim') \gset
select is((select owner from q.job where id = :default_id), q.session_key(), 'by default the owner is q.session_key()');
select ok(exists (select from pg_locks l
                   where l.locktype = 'advisory' and l.pid = pg_backend_pid() and l.granted
                     and l.classid::bigint = (q.lock_space()::bigint & 4294967295) and l.objid::bigint = q.session_key()
                     and l.objsubid = 2),
  'this session holds the advisory lock of its key');

select id as lease_only_id from q.claim('claim', owner => 0) \gset
select is((select owner from q.job where id = :lease_only_id), null, 'owner => 0 records no owner (lease only)');

select id as explicit_id from q.claim('claim', owner => 424242) \gset
select is((select owner from q.job where id = :explicit_id), 424242, 'an explicit owner key is recorded as given');

select is((select count(*)::integer from q.job where state = 'r'), 3, '(all three jobs are running)');

select * from finish();
rollback;
