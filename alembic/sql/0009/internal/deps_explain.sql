create or replace function q.deps_explain(job q_data.job)
returns table (code text, message text, detail jsonb)
language plpgsql
stable
set search_path = pg_catalog, pg_temp
as $$
declare
  v_waiting  bigint[];
  v_failed   bigint[];
begin
  -- At most 20 ids of each kind in the sentence and the detail; the count is exact.
  v_waiting := array(select d.parent_id from q_data.job_dep d
                      where d.child_id = deps_explain.job.id and d.outcome is null
                      order by d.parent_id limit 20);
  if deps_explain.job.state = 'o' then
    v_failed := array(select d.parent_id from q_data.job_dep d
                       where d.child_id = deps_explain.job.id and d.outcome in ('d', 'x') and d.on_failure = 'h'
                       order by d.parent_id limit 20);
    return query select 'on_hold'::text,
      format('on hold: parent(s) %s died or were cancelled and the policy is hold; q.unblock(%s) lets it go on, q.cancel(%s) drops it',
             array_to_string(v_failed, ', '), deps_explain.job.id, deps_explain.job.id),
      jsonb_build_object('failed_parents', to_jsonb(v_failed), 'parents_left', deps_explain.job.parents_left,
                         'waiting_for', to_jsonb(v_waiting));
    return;
  end if;
  return query select 'waiting_for_parents'::text,
    format('waits for %s parent(s) to end: %s%s', deps_explain.job.parents_left, array_to_string(v_waiting, ', '),
           case when deps_explain.job.parents_left > 20 then ', ...' else '' end),
    jsonb_build_object('parents_left', deps_explain.job.parents_left, 'waiting_for', to_jsonb(v_waiting));
end
$$;

comment on function q.deps_explain(q_data.job) is
  'q.explain''s rows for a pending job (waiting_for_parents: which parents it waits for) or one on hold (on_hold: which parents failed).';

revoke all on function q.deps_explain(q_data.job) from public;
