create or replace function q.batch_join(batch bigint)
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
begin
  -- FOR KEY SHARE until commit: producers adding members do not block each
  -- other, and q.seal_batch (FOR UPDATE) waits for them, so the seal counts
  -- every member added before it.
  perform from q_data.batch b where b.id = batch_join.batch and b.sealed_at is null for key share;
  if not found then
    if exists (select from q_data.batch b where b.id = batch_join.batch) then
      raise exception 'batch % is sealed: no member can join it', batch_join.batch using errcode = '55000';
    end if;
    raise exception 'batch % does not exist', batch_join.batch using errcode = 'P0002';
  end if;
end
$$;

comment on function q.batch_join(bigint) is
  'Before a job joins a batch: locks the batch row FOR KEY SHARE until commit; 55000 if it is sealed, P0002 if unknown.';

revoke all on function q.batch_join(bigint) from public;
