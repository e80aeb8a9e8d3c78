-- The 1 MiB payload cap counts the decompressed value on every path (issue
-- 9, item 5). A value read from a table column arrives compressed, and 0002
-- measured that: a 209,715,212-byte job went in through q.enqueue_many from a
-- producer's own temp table. Here 2 MiB of repetitive text compresses to a
-- few kB; q.enqueue and q.enqueue_many must both refuse it (54000).
begin;
select plan(6);
\ir ../_helpers.psql

create temp table big (payload jsonb, payloads jsonb);
insert into big values (to_jsonb(repeat('a', 2097152)), jsonb_build_array(to_jsonb(repeat('a', 2097152))));
select cmp_ok((select pg_column_size(payload) from big), '<', 1048576, '(the stored payload is compressed below the cap)');
select isnt((select pg_column_compression(payloads) from big), null, '(and so is the stored array)');

select q.enqueue('caps', '{}') \g /dev/null
select pg_temp.pgq_state() as before \gset
select throws_ok($$ select q.enqueue('caps', b.payload) from big b $$, '54000', null,
  'q.enqueue refuses a 2 MiB payload read (compressed) from a table column');
select throws_ok($$ select q.enqueue_many('caps', b.payloads) from big b $$, '54000', null,
  'q.enqueue_many refuses an array holding it, read (compressed) from a table column');
select is(pg_temp.pgq_state(), :'before', 'nothing was written');

create temp table small as select to_jsonb(repeat('b', 600000)) as payload;
select lives_ok($$ select q.enqueue('caps', s.payload) from small s $$, 'a compressed payload under the cap decompressed is accepted');

select * from finish();
rollback;
