create or replace function q.configure(
  queue           text,
  lease           interval default null,
  max_attempts    integer  default null,
  max_crashes     integer  default null,
  backoff_base    interval default null,
  backoff_max     interval default null,
  keep_completed  boolean  default null,
  retention       interval default null,
  concurrency      integer  default null,
  key_concurrency  integer  default null,
  ordered          boolean  default null,
  rate             integer  default null,
  per              interval default null,
  unlimit          text[]   default null,
  key_rate         integer  default null,
  key_per          interval default null,
  max_lease        interval default null,
  keep_results     interval default null,
  max_result_size  integer  default null
)
returns q_data.queue
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_queue q_data.queue := q.ensure_queue(configure.queue);
begin
  if configure.max_attempts not between 1 and 32767 or configure.max_crashes not between 1 and 32767 then
    raise exception 'max_attempts and max_crashes must be between 1 and 32767'
      using errcode = '22023';
  end if;
  if configure.lease <= interval '0' or configure.backoff_base < interval '0'
     or configure.backoff_max < interval '0' or configure.retention < interval '0' then
    raise exception 'lease must be positive and backoff_base, backoff_max, retention not negative'
      using errcode = '22023';
  end if;
  if configure.max_lease <= interval '0' then
    raise exception 'max_lease must be positive, got %', configure.max_lease
      using errcode = '22023';
  end if;
  -- Results (design.md#results-and-dependencies): not in settings_are_valid (see sql/schema/095_results.sql), so checked here only.
  if configure.keep_results < interval '0' or configure.max_result_size not between 0 and 104857600 then
    raise exception 'keep_results must not be negative and max_result_size must be between 0 and 104857600 bytes, got % and %',
      configure.keep_results, configure.max_result_size
      using errcode = '22023';
  end if;
  if coalesce(configure.lease, v_queue.lease) > coalesce(configure.max_lease, v_queue.max_lease) then
    raise exception 'lease % must be at most max_lease %', coalesce(configure.lease, v_queue.lease),
      coalesce(configure.max_lease, v_queue.max_lease)
      using errcode = '22023';
  end if;
  if coalesce(configure.backoff_max, v_queue.backoff_max) < coalesce(configure.backoff_base, v_queue.backoff_base) then
    raise exception 'backoff_max (%) must be at least backoff_base (%)',
      coalesce(configure.backoff_max, v_queue.backoff_max), coalesce(configure.backoff_base, v_queue.backoff_base)
      using errcode = '22023';
  end if;

  update q_data.queue qq
     set lease = coalesce(configure.lease, qq.lease),
         max_attempts = coalesce(configure.max_attempts, qq.max_attempts),
         max_crashes = coalesce(configure.max_crashes, qq.max_crashes),
         backoff_base = coalesce(configure.backoff_base, qq.backoff_base),
         backoff_max = coalesce(configure.backoff_max, qq.backoff_max),
         keep_completed = coalesce(configure.keep_completed, qq.keep_completed),
         retention = coalesce(configure.retention, qq.retention),
         max_lease = coalesce(configure.max_lease, qq.max_lease),
         keep_results = coalesce(configure.keep_results, qq.keep_results),
         max_result_size = coalesce(configure.max_result_size, qq.max_result_size)
   where qq.id = v_queue.id;
  perform q.flow_configure(v_queue.id, configure.concurrency, configure.key_concurrency, configure.ordered,
                           configure.rate, configure.per, configure.unlimit,
                           configure.key_rate, configure.key_per);
  select * into v_queue from q_data.queue qq where qq.id = v_queue.id;
  return v_queue;
end
$$;

comment on function q.configure(text, interval, integer, integer, interval, interval, boolean, interval, integer, integer, boolean, integer, interval, text[], integer, interval, interval, interval, integer) is
  'Changes a queue''s settings (NULL leaves one as it is) and returns them; creates the queue if needed. Defaults: lease 5 min, max_lease 1 hour (the longest lease a claim or heartbeat may ask for), max_attempts 5, max_crashes 3, backoff 1 s doubling to 1 h, keep_completed false, retention 7 days, keep_results 1 day (how long a completed job''s result is kept, whatever keep_completed), max_result_size 1 MiB (0..100 MiB; a larger result is refused with 54000). Flow control (all unlimited by default): concurrency = jobs running at once across all workers; key_concurrency = jobs per concurrency_key admitted (waiting or running) at once; ordered = a key''s jobs run one at a time in order (key_concurrency 1); rate starts per period per (sliding window; per defaults to 1 second); key_rate starts per key_per per concurrency_key (needs key_concurrency; key_per defaults to 1 second); unlimit names limits to remove. Bad values raise 22023 and change nothing.';

revoke all on function q.configure(text, interval, integer, integer, interval, interval, boolean, interval, integer, integer, boolean, integer, interval, text[], integer, interval, interval, interval, integer) from public;
grant execute on function q.configure(text, interval, integer, integer, interval, interval, boolean, interval, integer, integer, boolean, integer, interval, text[], integer, interval, interval, interval, integer) to pgq_admin;
