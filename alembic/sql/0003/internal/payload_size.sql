-- The size of a jsonb value as stored uncompressed. pg_column_size() gives
-- the size of the datum as it is: for a value read from a table column that
-- is the compressed size, so a 200 MB payload of repetitive text measured a
-- few kB and passed the 1 MiB cap (0002, through q.enqueue_many from a
-- producer's temp table). Values sent by a client are never compressed: the
-- common path costs one header read.
create or replace function q.payload_size(payload jsonb)
returns integer
language plpgsql
immutable
set search_path = pg_catalog, pg_temp
as $$
begin
  if pg_column_compression(payload_size.payload) is null then
    return pg_column_size(payload_size.payload);
  end if;
  -- A new value built around the payload is uncompressed: its size less the
  -- 8 bytes the wrapping array adds (header and one entry).
  return pg_column_size(jsonb_build_array(payload_size.payload)) - 8;
end
$$;

comment on function q.payload_size(jsonb) is
  'Bytes of a jsonb value decompressed (pg_column_size of the value, or of an uncompressed copy when it arrived compressed).';

revoke all on function q.payload_size(jsonb) from public;
