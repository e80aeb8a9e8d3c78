create or replace function q.adopt(ids bigint[], tokens uuid[], owner integer)
returns setof bigint
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_adopted bigint[];
begin
  perform q.check_claims(adopt.ids, adopt.tokens);
  if adopt.owner is null or adopt.owner <= 0 then
    raise exception 'owner must be a key from q.session_key(), got %', coalesce(adopt.owner::text, 'NULL')
      using errcode = '22023';
  end if;
  -- The same rule as q.claim: the new owner is a registered key, so q.reap
  -- judges the adopted claims by a session that exists.
  if not exists (select from q_data.session s where s.key = adopt.owner) then
    raise exception 'owner % is not a key from q.session_key()', adopt.owner
      using errcode = '22023',
            hint = 'call q.session_key() on the connection that stays open while the jobs run';
  end if;
  -- Restart without re-runs (design.md#restarts-without-re-runs): a worker whose connection or server
  -- went away reconnects with a new liveness key and moves its in-flight
  -- claims under it, so the reaper judges them by a session that is alive.
  -- Only the current token can: a claim the reaper already took back (or
  -- that finished) has another token or none, and is not returned. The
  -- lease is left as it is (the worker's next heartbeat extends it): adopt
  -- moves evidence of liveness, it does not lengthen a claim. Locked rows
  -- wait, as for q.heartbeat: a reaper holding one decides first.
  with adopted as (
    update q_data.job j
       set owner = adopt.owner
      from unnest(adopt.ids, adopt.tokens) as c(id, token)
     where j.id = c.id
       and j.state = 'r'
       and j.token = c.token
    returning j.id
  )
  select coalesce(array_agg(a.id), '{}') into v_adopted from adopted a;
  return query select unnest(v_adopted);
end
$$;

comment on function q.adopt(bigint[], uuid[], integer) is
  'Moves running claims (id and current token, as q.claim returned them) under liveness key owner (q.session_key() of the caller''s new connection); returns the ids moved. For a worker that reconnected after a server restart, a failover or a dropped connection: claims whose session ended with the server wait q.restart_grace() (at most their lease) for this before q.reap counts them crashed. A stale token (the claim was reaped, finished or taken over) moves nothing: that job is lost to the caller.';

revoke all on function q.adopt(bigint[], uuid[], integer) from public;
grant execute on function q.adopt(bigint[], uuid[], integer) to pgq_worker;
