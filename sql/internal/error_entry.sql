create or replace function q.error_entry(attempt integer, error text, crashed boolean, at timestamptz)
returns jsonb
language plpgsql
immutable
set search_path = pg_catalog, pg_temp
as $$
declare
  v_error text := coalesce(error_entry.error, '');
begin
  -- Bounded storage per job (0003): at most 4,096 characters of message per
  -- entry, and q.append_error keeps the newest 20 entries. 0002 cut at 65,536
  -- characters (an entry measured 262,256 bytes) and kept every entry, so
  -- ~1,000 fails with long texts reached jsonb's 256 MiB limit: q.fail raised
  -- 54000, and once that job's claim was lost every q.reap() raised it too.
  if length(v_error) > 4096 then
    v_error := left(v_error, 4096) || format(' [truncated: %s characters in all]', length(v_error));
  end if;
  return jsonb_build_array(jsonb_build_object(
    'attempt', error_entry.attempt,
    'at', error_entry.at,
    'error', v_error,
    'crashed', error_entry.crashed));
end
$$;

comment on function q.error_entry(integer, text, boolean, timestamptz) is
  'One element for q_data.job.errors, wrapped in an array so it can be appended (q.append_error); the message is cut at 4,096 characters with a "[truncated: N characters in all]" marker.';

revoke all on function q.error_entry(integer, text, boolean, timestamptz) from public;
