create or replace function q.retry_dead(
  queue           text,
  error_contains  text    default null,
  max_rows        integer default 1000
)
returns table (retried integer, skipped integer, more boolean)
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
-- An admin call never waits long behind an open transaction (a worker's, a
-- producer's): 55P03 after 2 s, naming the likely holders (q.lock_wait_failed).
set lock_timeout = '2s'
as $$
declare
  v_queue    q_data.queue := q.queue_named(retry_dead.queue);
  v_ids      bigint[];
  v_skipped  integer;
  v_retried  integer;
begin
  perform q.check_max_rows(retry_dead.max_rows, 100000);

  -- The oldest dead jobs first, optionally only those whose last error
  -- contains the text (case-insensitive; no LIKE wildcards). Through the
  -- partial index job_history_dead_idx.
  v_ids := array(
    select h.id from q_data.job_history h
     where h.queue_id = v_queue.id and h.state = 'dead'
       and (retry_dead.error_contains is null
            or strpos(lower(h.errors -> -1 ->> 'error'), lower(retry_dead.error_contains)) > 0)
     order by h.finished_at, h.id
     limit retry_dead.max_rows
       for update skip locked);

  -- A dead job whose dedup key a live job holds (or an earlier one of this
  -- batch takes) stays dead: counted as skipped, as q.retry would refuse it.
  with candidates as (
    select h.*, row_number() over (partition by h.dedup_key order by h.id) as nth
      from q_data.job_history h where h.id = any(v_ids)
  ), chosen as (
    select c.* from candidates c
     where c.dedup_key is null
        or (c.nth = 1 and not exists (select from q_data.job j
                                        where j.queue_id = c.queue_id and j.dedup_key = c.dedup_key))
  )
  -- Each through q.retry, oldest first: same id, a fresh budget, the newest 20 errors and
  -- the concurrency key kept (a keyed job takes its key's slot or is held).
  select count(q.retry(c.id)) into v_retried from (select c.id from chosen c order by c.finished_at, c.id) c;
  v_skipped := cardinality(v_ids) - v_retried;

  return query select v_retried, v_skipped,
    exists (select from q_data.job_history h
             where h.queue_id = v_queue.id and h.state = 'dead'
               and (retry_dead.error_contains is null
                    or strpos(lower(h.errors -> -1 ->> 'error'), lower(retry_dead.error_contains)) > 0)
               and h.id <> all(v_ids));
exception when lock_not_available then
  perform q.lock_wait_failed('q.retry_dead', format('queue %L', retry_dead.queue));
end
$$;

comment on function q.retry_dead(text, text, integer) is
  'Puts up to max_rows (1..100000) dead jobs of a queue back as waiting, oldest first, as q.retry does (same id, attempt 0, errors kept); error_contains keeps only those whose last error contains that text (case-insensitive). Returns retried, skipped (a live job holds the dedup key: left dead) and more (matching dead jobs remain: call again). P0002 for an unknown queue.';

revoke all on function q.retry_dead(text, text, integer) from public;
grant execute on function q.retry_dead(text, text, integer) to pgq_admin;
