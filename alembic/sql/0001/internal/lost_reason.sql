create or replace function q.lost_reason(session_gone boolean)
returns text
language sql
immutable
set search_path = pg_catalog, pg_temp
as $$
  select case when lost_reason.session_gone then 'worker session ended' else 'lease expired' end
$$;

comment on function q.lost_reason(boolean) is
  'Wording for a lost claim in q.job.errors.';

revoke all on function q.lost_reason(boolean) from public;
