-- A role with nothing but PUBLIC's rights gets nothing from pgq.
begin;
select plan(5);

create role pgq_tap_nobody nologin;

select throws_ok($$ set local role pgq_tap_nobody; select q.enqueue('priv', '{}') $$,
  '42501', null, 'PUBLIC cannot enqueue');
select throws_ok($$ set local role pgq_tap_nobody; select * from q.claim('priv') $$,
  '42501', null, 'PUBLIC cannot claim');
select throws_ok($$ set local role pgq_tap_nobody; select * from q.stats() $$,
  '42501', null, 'PUBLIC cannot read stats');
select throws_ok($$ set local role pgq_tap_nobody; select q.session_key() $$,
  '42501', null, 'PUBLIC cannot take a session key');
select throws_ok($$ set local role pgq_tap_nobody; select * from q_data.queue $$,
  '42501', null, 'PUBLIC cannot read q_data.queue');

select * from finish();
rollback;
