-- Bad arguments raise a documented SQLSTATE and move nothing.
begin;
select plan(6);

insert into q_data.session (key, pid, backend_start) values (2000000001, 0, now() - interval '1 hour');
select q.enqueue('adopt', '{}') as a \gset
select token as a_token from q.claim('adopt', 1, lease => '1 hour', owner => 2000000001) \gset

select throws_ok(format('select q.adopt(null, null, %s)', 2000000001), '22004', null, 'NULL arrays raise 22004');
select throws_ok(format('select q.adopt(array[%s]::bigint[], array[]::uuid[], %s)', :a, 2000000001), '22023', null,
  'arrays of different lengths raise 22023');
select throws_ok(format('select q.adopt(array[%s]::bigint[], array[%L]::uuid[], null)', :a, :'a_token'), '22023',
  'owner must be a key from q.session_key(), got NULL', 'a NULL owner raises 22023');
select throws_ok(format('select q.adopt(array[%s]::bigint[], array[%L]::uuid[], 0)', :a, :'a_token'), '22023',
  'owner must be a key from q.session_key(), got 0', 'owner 0 (lease-only) raises 22023');
select throws_ok(format('select q.adopt(array[%s]::bigint[], array[%L]::uuid[], 1999999999)', :a, :'a_token'), '22023',
  'owner 1999999999 is not a key from q.session_key()', 'an unregistered key raises 22023');
select is((select owner from q_data.job where id = :a), 2000000001, 'the claim is unchanged');

select * from finish();
rollback;
