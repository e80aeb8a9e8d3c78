-- The batch functions' way to their jobs: one probe of job_running_idx per
-- id. A join the planner chose itself hash- or merge-joined the ids against a
-- full scan of that index whenever statistics said few jobs run (ANALYZE
-- taken while nothing ran), a cost that grows with every claim in flight:
-- batch claim+complete fell to 0.29x the raw queue at 16 clients. OFFSET 0
-- keeps the lateral probe from being flattened back into such a join.
create or replace function q.current_claims(ids bigint[], tokens uuid[])
returns table (job_ctid tid, token uuid)
language plpgsql
stable
rows 50
set search_path = pg_catalog, pg_temp
as $$
begin
  return query
    select x.ctid, c.token
      from unnest(current_claims.ids, current_claims.tokens) as c(id, token),
           lateral (select y.ctid
                      from q_data.job y
                     where y.id = c.id
                       and y.state = 'r'
                       and y.token = c.token
                    offset 0) x;
end
$$;

comment on function q.current_claims(bigint[], uuid[]) is
  'Row versions (ctid) of the jobs whose current claim is one of the (ids[i], tokens[i]) pairs, each found by its own index probe. A row updated since has a new version that the ctid no longer names: writing by ctid passes it by, and the caller retries such claims one by one.';

revoke all on function q.current_claims(bigint[], uuid[]) from public;
