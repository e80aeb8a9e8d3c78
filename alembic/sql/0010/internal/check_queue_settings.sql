create or replace function q.check_queue_settings(
  name             text,
  lease            interval,
  max_attempts     smallint,
  max_crashes      smallint,
  backoff_base     interval,
  backoff_max      interval,
  retention        interval,
  concurrency      integer,
  key_concurrency  integer,
  ordered          boolean,
  rate             integer,
  per              interval,
  key_rate         integer,
  key_per          interval,
  max_lease        interval
)
returns boolean
language plpgsql
immutable
set search_path = pg_catalog, pg_temp
as $$
begin
  -- The one CHECK constraint of q_data.queue (settings_are_valid), for every
  -- insert and update of a queue row. Why one function and not 17 CHECK
  -- constraints (0007): PostgreSQL rebuilds every CHECK expression of a table
  -- from its stored text (stringToNode, then planning) at each INSERT
  -- statement; at 17 that was ~30 us of the ~40 us insert of a new queue's
  -- row, and the main part of why an enqueue into a new name was ~3x 0002's
  -- (design.md#queue-names-cost-nothing-when-idle). A violation names the rule it breaks, as the
  -- constraint did (q.configure checks its arguments first and raises 22023).
  if not check_queue_settings.name ~ '^[A-Za-z0-9][A-Za-z0-9_.:-]{0,62}$' then
    raise exception 'queue setting violates name_is_valid: %', quote_literal(left(check_queue_settings.name, 100))
      using errcode = '23514', constraint = 'name_is_valid';
  end if;
  if not check_queue_settings.lease > interval '0' then
    raise exception 'queue setting violates lease_is_positive: %', check_queue_settings.lease
      using errcode = '23514', constraint = 'lease_is_positive';
  end if;
  if not check_queue_settings.max_attempts > 0 then
    raise exception 'queue setting violates max_attempts_is_positive: %', check_queue_settings.max_attempts
      using errcode = '23514', constraint = 'max_attempts_is_positive';
  end if;
  if not check_queue_settings.max_crashes > 0 then
    raise exception 'queue setting violates max_crashes_is_positive: %', check_queue_settings.max_crashes
      using errcode = '23514', constraint = 'max_crashes_is_positive';
  end if;
  if not check_queue_settings.backoff_base >= interval '0' then
    raise exception 'queue setting violates backoff_base_is_not_negative: %', check_queue_settings.backoff_base
      using errcode = '23514', constraint = 'backoff_base_is_not_negative';
  end if;
  if not check_queue_settings.backoff_max >= check_queue_settings.backoff_base then
    raise exception 'queue setting violates backoff_max_is_at_least_base: % < %',
      check_queue_settings.backoff_max, check_queue_settings.backoff_base
      using errcode = '23514', constraint = 'backoff_max_is_at_least_base';
  end if;
  if not check_queue_settings.retention >= interval '0' then
    raise exception 'queue setting violates retention_is_not_negative: %', check_queue_settings.retention
      using errcode = '23514', constraint = 'retention_is_not_negative';
  end if;
  -- Flow control (sql/schema/065_flow.sql, 075_key_rate.sql): NULL = unlimited.
  if not coalesce(check_queue_settings.concurrency between 1 and 10000, true) then
    raise exception 'queue setting violates concurrency_is_in_range: %', check_queue_settings.concurrency
      using errcode = '23514', constraint = 'concurrency_is_in_range';
  end if;
  if not coalesce(check_queue_settings.key_concurrency between 1 and 1000, true) then
    raise exception 'queue setting violates key_concurrency_is_in_range: %', check_queue_settings.key_concurrency
      using errcode = '23514', constraint = 'key_concurrency_is_in_range';
  end if;
  if not coalesce(not check_queue_settings.ordered or check_queue_settings.key_concurrency = 1, true) then
    raise exception 'queue setting violates ordered_keys_run_one_at_a_time: key_concurrency %',
      check_queue_settings.key_concurrency
      using errcode = '23514', constraint = 'ordered_keys_run_one_at_a_time';
  end if;
  if not coalesce(check_queue_settings.rate between 1 and 100000, true) then
    raise exception 'queue setting violates rate_is_in_range: %', check_queue_settings.rate
      using errcode = '23514', constraint = 'rate_is_in_range';
  end if;
  if not coalesce(check_queue_settings.per > interval '0' and check_queue_settings.per <= interval '1 day', true) then
    raise exception 'queue setting violates per_is_in_range: %', check_queue_settings.per
      using errcode = '23514', constraint = 'per_is_in_range';
  end if;
  if (check_queue_settings.rate is null) <> (check_queue_settings.per is null) then
    raise exception 'queue setting violates rate_and_per_go_together'
      using errcode = '23514', constraint = 'rate_and_per_go_together';
  end if;
  if not coalesce(check_queue_settings.key_rate between 1 and 1000, true) then
    raise exception 'queue setting violates key_rate_is_in_range: %', check_queue_settings.key_rate
      using errcode = '23514', constraint = 'key_rate_is_in_range';
  end if;
  if not coalesce(check_queue_settings.key_per > interval '0' and check_queue_settings.key_per <= interval '1 day', true) then
    raise exception 'queue setting violates key_per_is_in_range: %', check_queue_settings.key_per
      using errcode = '23514', constraint = 'key_per_is_in_range';
  end if;
  if (check_queue_settings.key_rate is null) <> (check_queue_settings.key_per is null) then
    raise exception 'queue setting violates key_rate_and_key_per_go_together'
      using errcode = '23514', constraint = 'key_rate_and_key_per_go_together';
  end if;
  -- The lease cap (sql/schema/079_max_lease.sql).
  if not check_queue_settings.max_lease > interval '0' then
    raise exception 'queue setting violates max_lease_is_positive: %', check_queue_settings.max_lease
      using errcode = '23514', constraint = 'max_lease_is_positive';
  end if;
  if not check_queue_settings.lease <= check_queue_settings.max_lease then
    raise exception 'queue setting violates lease_is_at_most_max_lease: % > %',
      check_queue_settings.lease, check_queue_settings.max_lease
      using errcode = '23514', constraint = 'lease_is_at_most_max_lease';
  end if;
  if check_queue_settings.key_rate is not null and check_queue_settings.key_concurrency is null then
    raise exception 'queue setting violates key_rate_needs_key_concurrency'
      using errcode = '23514', constraint = 'key_rate_needs_key_concurrency';
  end if;
  return true;
end
$$;

comment on function q.check_queue_settings(text, interval, smallint, smallint, interval, interval, interval, integer, integer, boolean, integer, interval, integer, interval, interval) is
  'The rules of a q_data.queue row (its CHECK constraint settings_are_valid): true, or 23514 naming the rule broken (name_is_valid, lease_is_positive, ..., key_rate_needs_key_concurrency).';

revoke all on function q.check_queue_settings(text, interval, smallint, smallint, interval, interval, interval, integer, integer, boolean, integer, interval, integer, interval, interval) from public;
