-- lease_until is the claim time plus the lease: the queue's lease by
-- default (5 minutes, or what configure set), or the lease passed to claim.
begin;
select plan(4);

select count(*) from q.enqueue_many('claim', '[1, 2, 3]') \g /dev/null

select clock_timestamp() as t0 \gset
select lease_until as default_until from q.claim('claim') \gset
select clock_timestamp() as t1 \gset
select ok(:'default_until'::timestamptz between :'t0'::timestamptz + interval '5 minutes' and :'t1'::timestamptz + interval '5 minutes',
  'by default the lease is the queue''s 5 minutes');

select clock_timestamp() as t0 \gset
select id as explicit_id, lease_until as explicit_until from q.claim('claim', lease => '30 seconds') \gset
select clock_timestamp() as t1 \gset
select ok(:'explicit_until'::timestamptz between :'t0'::timestamptz + interval '30 seconds' and :'t1'::timestamptz + interval '30 seconds',
  'an explicit lease of 30 seconds gives now + 30 s');
select is((select lease_until from q_data.job where id = :explicit_id), :'explicit_until'::timestamptz,
  'the returned lease_until is the stored one');

select q.configure('claim', lease => '2 hours', max_lease => '2 hours') \g /dev/null
select clock_timestamp() as t0 \gset
select lease_until as configured_until from q.claim('claim') \gset
select clock_timestamp() as t1 \gset
select ok(:'configured_until'::timestamptz between :'t0'::timestamptz + interval '2 hours' and :'t1'::timestamptz + interval '2 hours',
  'a configured queue lease of 2 hours is used');

select * from finish();
rollback;
