-- Which concurrency keys are busy (revision 0009,
-- design.md#held-jobs-are-visible): a keyed queue's Limits line says how many
-- keys have a busy slot; this says which, the busiest first, with their
-- running and held jobs, so an operator sees that tenant 'acme' has 2 of 2
-- slots taken and 40 jobs held behind them. Reads the busy key slots of the
-- queue (at most key_concurrency per busy key) and, for the top keys only,
-- their held jobs through job_held_idx (each count exact up to 10,000, 10,001
-- beyond).
create or replace function q.busy_keys(
  queue     text    default null,
  max_rows  integer default 10
)
returns table (
  queue    text,
  key      text,
  admitted integer,
  running  integer,
  held     bigint
)
language sql
stable
security definer
set search_path = pg_catalog, pg_temp
as $$
    select qq.name, k.key, k.admitted, k.running,
           (select count(*) from (select from q_data.job j
                                   where j.queue_id = qq.id and j.concurrency_key = k.key and j.state = 'h'
                                   limit 10001) h)
      from q_data.queue qq
      cross join lateral (
        -- An admitted job holds a key slot (waiting, put off or running);
        -- running ones are found through job_running_idx, by id.
        select s.key, count(*)::integer as admitted,
               count(*) filter (where exists (select from q_data.job j
                                               where j.id = s.job_id and j.state = 'r'))::integer as running
          from q_data.key_slot s
         where s.queue_id = qq.id and s.job_id is not null
         group by s.key
         order by 2 desc, 3 desc, 1
         limit busy_keys.max_rows) k
     -- (max_rows outside 1..1000 raises 22023)
     where q.check_max_rows(busy_keys.max_rows, 1000)::text = ''
       and (busy_keys.queue is null or qq.name = busy_keys.queue)
       and qq.key_concurrency is not null
     order by qq.name, k.admitted desc, k.running desc, k.key
$$;

comment on function q.busy_keys(text, integer) is
  'The busiest concurrency keys of every queue with key_concurrency (or the one named): up to max_rows (1..1000, default 10) keys per queue with the most admitted jobs (holding a key slot: waiting, put off or running), with how many of them run and how many jobs are held behind them (exact up to 10,000; 10,001 means more).';

revoke all on function q.busy_keys(text, integer) from public;
grant execute on function q.busy_keys(text, integer) to pgq_viewer;
