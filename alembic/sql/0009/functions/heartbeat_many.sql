create or replace function q.heartbeat_many(ids bigint[], tokens uuid[], lease interval default null,
                                            progress jsonb[] default null)
returns table (id bigint, status text)
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
begin
  perform q.check_claims(heartbeat_many.ids, heartbeat_many.tokens);
  if heartbeat_many.progress is not null and cardinality(heartbeat_many.progress) <> cardinality(heartbeat_many.ids) then
    raise exception 'progress must be as long as ids (one per job, NULL for unchanged), got % and %',
      cardinality(heartbeat_many.progress), cardinality(heartbeat_many.ids)
      using errcode = '22023';
  end if;
  return query
    select h.id, q.heartbeat(h.id, h.token, heartbeat_many.lease, h.progress)
      from unnest(heartbeat_many.ids, heartbeat_many.tokens, heartbeat_many.progress) as h(id, token, progress);
end
$$;

comment on function q.heartbeat_many(bigint[], uuid[], interval, jsonb[]) is
  'q.heartbeat for many claims in one statement, with progress[i] (or NULL) for ids[i]; returns each id with ''running'', ''cancelled'' or ''lost''.';

revoke all on function q.heartbeat_many(bigint[], uuid[], interval, jsonb[]) from public;
grant execute on function q.heartbeat_many(bigint[], uuid[], interval, jsonb[]) to pgq_worker;
