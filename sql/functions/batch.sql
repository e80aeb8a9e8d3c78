create or replace function q.batch(id bigint)
returns table (batch_id bigint, callback_queue text, on_dead text, created_at timestamptz, sealed_at timestamptz,
               fired_at timestamptz, callback_id bigint, members_left bigint, completed bigint, dead bigint,
               cancelled bigint)
language sql
stable
security definer
set search_path = pg_catalog, pg_temp
as $$
  select b.id, b.callback_queue, case b.on_dead when 'f' then 'fire' else 'wait' end, b.created_at, b.sealed_at,
         b.fired_at, b.callback_id,
         (select count(*) from q_data.job j where j.batch_id = b.id),
         (select count(*) from q_data.batch_done d where d.batch_id = b.id and d.outcome = 'c'),
         (select count(*) from q_data.batch_done d where d.batch_id = b.id and d.outcome = 'd'),
         (select count(*) from q_data.batch_done d where d.batch_id = b.id and d.outcome = 'x')
    from q_data.batch b
   where b.id = batch.id
$$;

comment on function q.batch(bigint) is
  'A batch''s state: sealed_at, fired_at and the callback job''s id, members not ended yet, and members that completed, died or were cancelled. No row for an unknown batch.';

revoke all on function q.batch(bigint) from public;
grant execute on function q.batch(bigint) to pgq_viewer;
