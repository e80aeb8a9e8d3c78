-- The claim records whose liveness proves the job is in hand: none by
-- default and with owner => 0 (lease only: a pooled connection may be
-- closed or recycled while its job runs), or a key from q.session_key()
-- passed explicitly. A key nobody registered is refused (22023), so a typo
-- cannot make the reaper take a live job for a crashed one.
begin;
select plan(5);

select count(*) from q.enqueue_many('claim', '[1, 2, 3]') \g /dev/null

select id as default_id from q.claim('claim') \gset
select is((select owner from q_data.job where id = :default_id), null, 'by default a claim records no owner (lease only)');

select id as lease_only_id from q.claim('claim', owner => 0) \gset
select is((select owner from q_data.job where id = :lease_only_id), null, 'owner => 0 records no owner (lease only)');

select id as explicit_id from q.claim('claim', owner => q.session_key()) \gset
select is((select owner from q_data.job where id = :explicit_id), q.session_key(), 'owner => q.session_key() is recorded as given');

select throws_ok($$ select * from q.claim('claim', owner => 424242) $$, '22023',
  'owner 424242 is not a key from q.session_key()', 'an owner key nobody registered is refused');

select is((select count(*)::integer from q_data.job where state = 'r'), 3, '(all three jobs are running)');

select * from finish();
rollback;
