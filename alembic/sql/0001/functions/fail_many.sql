create or replace function q.fail_many(
  ids       bigint[],
  tokens    uuid[],
  errors    text[],
  retry_in  interval default null
)
returns table (id bigint, status text)
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
begin
  perform q.check_claims(fail_many.ids, fail_many.tokens, fail_many.errors);
  return query
    select f.id, q.fail(f.id, f.token, f.error, fail_many.retry_in)
      from unnest(fail_many.ids, fail_many.tokens, fail_many.errors) as f(id, token, error);
end
$$;

comment on function q.fail_many(bigint[], uuid[], text[], interval) is
  'q.fail for many claims in one statement; returns each id with ''retry'', ''dead'' or ''lost''.';

revoke all on function q.fail_many(bigint[], uuid[], text[], interval) from public;
grant execute on function q.fail_many(bigint[], uuid[], text[], interval) to pgq_worker;
