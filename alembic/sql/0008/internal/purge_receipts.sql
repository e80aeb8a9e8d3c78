create or replace function q.purge_receipts(max_rows integer, now timestamptz)
returns integer
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_count integer;
begin
  -- Oldest first through enqueue_receipt_created_idx: the cost is the
  -- receipts deleted, whatever the number of queues.
  delete from q_data.enqueue_receipt r
   where r.ctid = any(array(
           select x.ctid from q_data.enqueue_receipt x
            where x.created_at < purge_receipts.now - interval '24 hours'
            order by x.created_at
            limit purge_receipts.max_rows
              for update skip locked));
  get diagnostics v_count = row_count;
  return v_count;
end
$$;

comment on function q.purge_receipts(integer, timestamptz) is
  'Deletes up to max_rows q.enqueue_many receipts older than 24 hours; returns how many.';

revoke all on function q.purge_receipts(integer, timestamptz) from public;
