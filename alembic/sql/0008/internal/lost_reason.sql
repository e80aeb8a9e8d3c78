create or replace function q.lost_reason(session_gone boolean)
returns text
language plpgsql
immutable
set search_path = pg_catalog, pg_temp
as $$
begin
  return case when lost_reason.session_gone then 'worker session ended' else 'lease expired' end;
end
$$;

comment on function q.lost_reason(boolean) is
  'Wording for a lost claim in q_data.job.errors.';

revoke all on function q.lost_reason(boolean) from public;
