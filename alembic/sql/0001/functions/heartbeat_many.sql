create or replace function q.heartbeat_many(ids bigint[], tokens uuid[], lease interval default null)
returns table (id bigint, status text)
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
begin
  perform q.check_claims(heartbeat_many.ids, heartbeat_many.tokens);
  return query
    select h.id, q.heartbeat(h.id, h.token, heartbeat_many.lease)
      from unnest(heartbeat_many.ids, heartbeat_many.tokens) as h(id, token);
end
$$;

comment on function q.heartbeat_many(bigint[], uuid[], interval) is
  'q.heartbeat for many claims in one statement; returns each id with ''running'', ''cancelled'' or ''lost''.';

revoke all on function q.heartbeat_many(bigint[], uuid[], interval) from public;
grant execute on function q.heartbeat_many(bigint[], uuid[], interval) to pgq_worker;
