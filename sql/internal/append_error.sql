-- Every path that writes q_data.job.errors goes through here (fail, fail_many via
-- fail, reap, retry): the history of a job is its newest 20 entries. Older
-- ones are dropped before appending, so even a history written by 0002 (any
-- length) never grows the value towards jsonb's 256 MiB limit.
create or replace function q.append_error(errors jsonb, entry jsonb)
returns jsonb
language plpgsql
immutable
set search_path = pg_catalog, pg_temp
as $$
begin
  if append_error.errors is null then
    return append_error.entry;
  end if;
  if jsonb_array_length(append_error.errors) + jsonb_array_length(append_error.entry) <= 20 then
    return append_error.errors || append_error.entry;
  end if;
  -- Trim first, then append: errors || entry could itself exceed the limit.
  -- (Lax mode: a start before the first element means the first element.)
  return jsonb_path_query_array(
           append_error.errors,
           format('$[last - %s to last]', 19 - jsonb_array_length(append_error.entry))::jsonpath)
         || append_error.entry;
end
$$;

comment on function q.append_error(jsonb, jsonb) is
  'errors || entry, keeping the newest 20 entries (NULL errors: entry alone).';

revoke all on function q.append_error(jsonb, jsonb) from public;
