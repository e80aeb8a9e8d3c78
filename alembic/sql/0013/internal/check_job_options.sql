-- q.enqueue tests the same rules in one expression first and calls this only
-- when that test fails (design.md#few-expressions-per-call): a rule added or
-- changed here belongs in that test too (pgtap/enqueue/ holds every rule).
create or replace function q.check_job_options(payload jsonb, priority integer, max_attempts integer)
returns void
language plpgsql
immutable
set search_path = pg_catalog, pg_temp
as $$
declare
  v_size integer;
begin
  if check_job_options.payload is null then
    raise exception 'payload must not be null (use ''null''::jsonb or ''{}'' for an empty one)'
      using errcode = '22004';
  end if;
  -- The cap keeps one job from bloating the hot table; large data belongs
  -- in your own table, referenced from the payload. Measured decompressed
  -- (q.payload_size): a value read from a table column arrives compressed.
  -- (Inline for the common uncompressed case: a function call per enqueue
  -- cost about 4 us, 15% of a single q.enqueue.)
  v_size := case when pg_column_compression(check_job_options.payload) is null
                 then pg_column_size(check_job_options.payload)
                 else q.payload_size(check_job_options.payload) end;
  if v_size > 1048576 then
    raise exception 'payload is % bytes; the cap is 1048576 bytes (1 MiB)', v_size
      using errcode = '54000';
  end if;
  -- PostgreSQL stores JSON nested thousands of levels deep, but decoders
  -- refuse far less (Python's json module about 1000 levels, Rust's
  -- serde_json 128): such a job could be enqueued but never claimed by the
  -- Python client, and would fail every worker that claimed it. A level is
  -- an array or object: the outermost is at path level 0, so a 101st nested
  -- container sits at level 100 (0002 looked for anything at level 101 and
  -- let 101 nested empty arrays through).
  if jsonb_path_exists(check_job_options.payload,
                       'strict $.**{100} ? (@.type() == "array" || @.type() == "object")') then
    raise exception 'payload nests deeper than 100 levels; the cap is 100'
      using errcode = '54000';
  end if;
  if check_job_options.priority is null or check_job_options.priority not between -32768 and 32767 then
    raise exception 'priority must be between -32768 and 32767, got %', coalesce(check_job_options.priority::text, 'NULL')
      using errcode = '22023';
  end if;
  if check_job_options.max_attempts is not null and check_job_options.max_attempts not between 1 and 32767 then
    raise exception 'max_attempts must be between 1 and 32767, got %', check_job_options.max_attempts
      using errcode = '22023';
  end if;
end
$$;

comment on function q.check_job_options(jsonb, integer, integer) is
  'Raises 22004/54000/22023 for a NULL, oversized (over 1 MiB) or too deeply nested (over 100 nested arrays/objects) payload, or a priority or max_attempts out of range.';

revoke all on function q.check_job_options(jsonb, integer, integer) from public;
