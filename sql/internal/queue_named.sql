create or replace function q.queue_named(queue text)
returns q_data.queue
language plpgsql
stable
set search_path = pg_catalog, pg_temp
as $$
declare
  v_queue q_data.queue;
begin
  -- For admin calls that act on an existing queue: a malformed name is
  -- 22023/22004 (as everywhere), a well-formed one nobody used is P0002.
  perform q.check_queue_name(queue_named.queue);
  select qq.* into v_queue from q_data.queue qq where qq.name = queue_named.queue;
  if not found then
    raise exception 'queue % does not exist', quote_literal(queue_named.queue) using errcode = 'P0002';
  end if;
  return v_queue;
end
$$;

comment on function q.queue_named(text) is
  'The settings row of an existing queue; raises P0002 when no queue has that name (22023/22004 for a malformed or NULL name).';

revoke all on function q.queue_named(text) from public;
