-- A put-off job comes back when its key's window frees a start: the i-th
-- put off in a claim waits for the key's i-th next start (rate 2: the two
-- stamps plus key_per, then the first plus twice key_per), and the key's
-- order holds.
begin;
select plan(6);

select q.configure('kw', key_concurrency => 10, key_rate => 2, key_per => '1 hour') \g /dev/null
select q.enqueue('kw', jsonb_build_object('i', g), concurrency_key => 'K') from generate_series(1, 5) g \g /dev/null
select array_agg(id order by id) as ids from q_data.job \gset

select is((select array_agg(c.payload->>'i' order by c.id) from q.claim('kw', 1) c), '{1}', 'first start');
select is((select array_agg(c.payload->>'i' order by c.id) from q.claim('kw', 10) c), '{2}', 'second start; 3, 4, 5 put off');
select results_eq(
  $$ select j.run_at from q_data.job j where j.rate_wait order by j.id $$,
  $$ select x.t from (select r.used_at + interval '1 hour' as t, 1 as round from q_data.key_rate_slot r
                      union all
                      select min(r.used_at) + interval '2 hours', 2 from q_data.key_rate_slot r) x
      order by x.round, x.t $$,
  'put off until the 1st, 2nd and 3rd next starts the window allows');

-- An hour passes (for the stamps and the put-off jobs alike).
update q_data.key_rate_slot set used_at = used_at - interval '1 hour';
update q_data.job set run_at = run_at - interval '1 hour' where rate_wait;
select is((select array_agg(c.payload->>'i' order by c.id) from q.claim('kw', 10) c), '{3,4}',
  'the two due are promoted and start, in the key''s order');
select is((select count(*)::integer from q_data.job where state = 'r' and rate_wait is not null), 0, 'a started job is no longer marked');
select is((select array_agg(payload->>'i') from q_data.job where state = 's' and rate_wait), '{5}', 'the third still waits');

select * from finish();
rollback;
