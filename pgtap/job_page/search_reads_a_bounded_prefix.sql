-- A text search reads a bounded part of each job (0008, design.md#a-bounded-search: over
-- ~1 MiB payloads it took 9.2 s): the first 65,536 characters of the payload's
-- JSON text, nothing of a payload stored larger than 64 KiB, and the last
-- 65,536 characters of the errors.
begin;
select plan(5);

select q.enqueue('s', jsonb_build_object('note', 'needle-early')) as early \gset
select q.enqueue('s', jsonb_build_object('pad', repeat('x', 70000), 'note', 'needle-late')) as late \gset
-- Incompressible, so it is stored larger than 64 KiB: not searched at all.
select q.enqueue('s', jsonb_build_object('note', 'needle-big', 'pad',
  (select string_agg(md5(g::text), '') from generate_series(1, 4000) g))) as big \gset
-- Priority 10: claimed first.
select q.enqueue('s', '{}', priority => 10) as failed \gset
select q.fail(id, token, 'boom: needle-in-error') from q.claim('s') \g /dev/null

select ok((select pg_column_size(payload) > 65536 from q_data.job where id = :big), '(the big payload is stored larger than 64 KiB)');
select results_eq($$ select id from q.job_page('s', search => 'NEEDLE-EARLY') $$, array[:early::bigint],
  'text near the start of a payload is found, case-insensitively');
select results_eq($$ select id from q.job_page('s', search => 'needle-late') $$, $$ select null::bigint where false $$,
  'text past the first 65,536 characters is not');
select results_eq($$ select id from q.job_page('s', search => 'needle-big') $$, $$ select null::bigint where false $$,
  'a payload stored larger than 64 KiB is not searched');
select results_eq(format($$ select id from q.job_page('s', state => 'scheduled', search => 'needle-in-error') $$),
  array[:failed::bigint], 'an error''s text is searched');

select * from finish();
rollback;
