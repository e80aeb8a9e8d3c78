create or replace function q.schedules(name text default null)
returns setof q.schedule_info
language sql
stable
security definer
set search_path = pg_catalog, pg_temp
as $$
  select s.name, qq.name, s.cron, s.every, s.timezone, s.catch_up, s.paused,
         case when s.paused then null else s.next_fire_at end,
         s.last_slot, s.last_fired_at, s.last_job_id, s.payload, s.priority::integer, s.max_attempts::integer,
         s.created_at, s.updated_at
    from q_data.schedule s
    join q_data.queue qq on qq.id = s.queue_id
   where schedules.name is null or s.name = schedules.name
   order by s.name
$$;

comment on function q.schedules(text) is
  'Every schedule (or the one named) with its next fire time (NULL while paused), the newest slot fired and the job it enqueued.';

revoke all on function q.schedules(text) from public;
grant execute on function q.schedules(text) to pgq_viewer;
