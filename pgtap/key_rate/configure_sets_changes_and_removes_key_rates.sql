-- q.configure sets a per-key rate (key_per defaults to 1 second) without
-- making rate slots (starts make them, revision 0008), and a change or removal
-- makes the jobs it put off waiting again at once (the next claim re-checks them).
begin;
select plan(9);

select q.configure('kc', key_concurrency => 10) \g /dev/null
select q.enqueue('kc', jsonb_build_object('i', g), concurrency_key => 'K') from generate_series(1, 4) g \g /dev/null

select results_eq($$ select key_rate, key_per from q.configure('kc', key_rate => 3) $$,
  $$ values (3, interval '1 second') $$, 'key_per defaults to 1 second');
select is((select count(*)::integer from q_data.key_rate_slot where key = 'K'), 0, 'a known key gets no rate slot before it starts');
select results_eq($$ select key_rate, key_per from q.configure('kc', key_rate => 1, key_per => '1 hour') $$,
  $$ values (1, interval '1 hour') $$, 'changed');

select is((select count(*)::integer from q.claim('kc', 10)), 1, 'one start per hour');
select is((select count(*)::integer from q_data.key_rate_slot where key = 'K'), 1, 'the start made one rate slot');
select is((select count(*)::integer from q_data.job where rate_wait), 3, 'three put off');
select q.configure('kc', key_per => '2 hours') \g /dev/null
select is((select count(*)::integer from q_data.job where state = 'w' and rate_wait is null), 3,
  'a changed window makes them waiting again');
select is((select count(*)::integer from q.claim('kc', 10)), 0, '(and the next claim puts them off again under it)');
select q.configure('kc', unlimit => '{key_rate}') \g /dev/null
select results_eq(
  $$ select (select count(*)::integer from q_data.job where state = 'w'), (select count(*)::integer from q_data.key_rate_slot),
            (select key_rate from q_data.queue where name = 'kc') $$,
  $$ values (3, 0, null::integer) $$,
  'removed: the put-off jobs wait again, the rate slots are gone');

select * from finish();
rollback;
