create or replace function q.complete_many(ids bigint[], tokens uuid[])
returns setof bigint
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_job       q_data.job;
  v_queue_id  integer;
  v_keep      boolean;
  v_now       timestamptz := clock_timestamp();
  v_done      bigint[] := '{}';
  v_queues    integer[] := '{}';  -- pgq:observe (issue 13): the completed jobs' queues, for the tally
begin
  perform q.check_claims(complete_many.ids, complete_many.tokens);
  -- The usual case, no queue keeps completed jobs: one set-based DELETE.
  if not exists (select from q_data.queue qq where qq.keep_completed) then
    with gone as (
      delete from q_data.job j
       using q.current_claims(complete_many.ids, complete_many.tokens) as c
       where j.ctid = c.job_ctid
         and j.token = c.token
      returning j.id, j.queue_id
    ), tallied as (  -- pgq:observe (issue 13): throughput tally, in the same statement
      insert into q_data.tally (queue_id, outcome, n) select g.queue_id, 'c', count(*) from gone g group by g.queue_id
    )
    select coalesce(array_agg(g.id), '{}') into v_done from gone g;
  else
    for v_job in
      delete from q_data.job j
       using q.current_claims(complete_many.ids, complete_many.tokens) as c
       where j.ctid = c.job_ctid
         and j.token = c.token
      returning j.*
    loop
      if v_job.queue_id is distinct from v_queue_id then
        v_queue_id := v_job.queue_id;
        select qq.keep_completed into v_keep from q_data.queue qq where qq.id = v_queue_id;
      end if;
      if v_keep then
        perform q.finish(v_job, 'completed', v_now);
      end if;
      v_done := v_done || v_job.id;
      v_queues := v_queues || v_job.queue_id;
    end loop;
    perform q.tally(v_queues, 'c');  -- pgq:observe (issue 13); the stragglers below tally in q.complete
  end if;

  -- A claim whose row was updated while this statement waited for it (a
  -- heartbeat, say) has a new row version that its ctid no longer names, so
  -- the DELETE passed it by: those, and stale claims, go one by one.
  if cardinality(v_done) < cardinality(complete_many.ids) then
    v_done := v_done || array(
      select c.id from unnest(complete_many.ids, complete_many.tokens) as c(id, token)
       where c.id <> all(v_done) and c.token is not null and q.complete(c.id, c.token));
  end if;
  return query select unnest(v_done);
end
$$;

comment on function q.complete_many(bigint[], uuid[]) is
  'q.complete for many claims in one statement; returns the ids that were completed (the others were not the current claim).';

revoke all on function q.complete_many(bigint[], uuid[]) from public;
grant execute on function q.complete_many(bigint[], uuid[]) to pgq_worker;
