-- The payload comes back from claim exactly as it went in: any JSON value,
-- nesting, unicode, big numbers, escapes.
begin;
select plan(1);

create temp table sent (n serial, payload jsonb);
insert into sent (payload) values
  ('{"to": "ada@example.com", "tags": ["a", "b"], "nested": {"deep": [1, {"x": null}]}}'),
  ('"just a string"'),
  ('42'),
  ('123456789012345678901234567890.000000000000000000001'),
  ('null'),
  ('true'),
  ('[]'),
  ('{}'),
  ('{"unicode": "żółć 日本 🎉", "escapes": "tab\there \"quoted\" back\\slash \u00e9"}'),
  (jsonb_build_object('big', repeat('x', 100000)));

select q.enqueue('roundtrip', payload) from sent order by n \g /dev/null

select results_eq(
  $$ select payload from q.claim('roundtrip', 100) order by id $$,
  $$ select payload from sent order by n $$,
  'every payload is claimed back byte-for-byte equal, in order');

select * from finish();
rollback;
