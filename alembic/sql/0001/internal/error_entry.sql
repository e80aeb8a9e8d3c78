create or replace function q.error_entry(attempt integer, error text, crashed boolean, at timestamptz)
returns jsonb
language plpgsql
immutable
set search_path = pg_catalog, pg_temp
as $$
begin
  -- Tracebacks can be long; 64 KiB per attempt is plenty and bounds the row.
  return jsonb_build_array(jsonb_build_object(
    'attempt', error_entry.attempt,
    'at', error_entry.at,
    'error', left(coalesce(error_entry.error, ''), 65536),
    'crashed', error_entry.crashed));
end
$$;

comment on function q.error_entry(integer, text, boolean, timestamptz) is
  'One element for q.job.errors, wrapped in an array so it can be appended with ||.';

revoke all on function q.error_entry(integer, text, boolean, timestamptz) from public;
