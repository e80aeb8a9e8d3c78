-- The flow-control part of q.configure: checks the limits, stores them and
-- makes or drops the slot rows they need (sql/schema/065_flow.sql, 075_key_rate.sql).
create or replace function q.flow_configure(
  queue_id         integer,
  concurrency      integer,
  key_concurrency  integer,
  ordered          boolean,
  rate             integer,
  per              interval,
  unlimit          text[],
  key_rate         integer,
  key_per          interval
)
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_old    q_data.queue;
  v_new    q_data.queue;
  v_drop   text[] := coalesce(flow_configure.unlimit, '{}');
  v_back   bigint;
  v_keyed  tid[];
begin
  select * into v_old from q_data.queue qq where qq.id = flow_configure.queue_id for update;

  if array_position(v_drop, null) is not null
     or not v_drop <@ array['concurrency', 'key_concurrency', 'rate', 'key_rate'] then
    raise exception 'unlimit takes ''concurrency'', ''key_concurrency'', ''rate'' or ''key_rate'', got %', v_drop
      using errcode = '22023';
  end if;
  if (flow_configure.concurrency is not null and 'concurrency' = any(v_drop))
     or (flow_configure.key_concurrency is not null and 'key_concurrency' = any(v_drop))
     or ((flow_configure.rate is not null or flow_configure.per is not null) and 'rate' = any(v_drop))
     or ((flow_configure.key_rate is not null or flow_configure.key_per is not null) and 'key_rate' = any(v_drop)) then
    raise exception 'a limit cannot be set and removed (unlimit) in one call'
      using errcode = '22023';
  end if;
  if flow_configure.concurrency not between 1 and 10000 then
    raise exception 'concurrency must be between 1 and 10000 (unlimit => ''{concurrency}'' removes it), got %', flow_configure.concurrency
      using errcode = '22023';
  end if;
  if flow_configure.key_concurrency not between 1 and 1000 then
    raise exception 'key_concurrency must be between 1 and 1000 (unlimit => ''{key_concurrency}'' removes it), got %', flow_configure.key_concurrency
      using errcode = '22023';
  end if;
  if flow_configure.rate not between 1 and 100000 then
    raise exception 'rate must be between 1 and 100000 starts per period (unlimit => ''{rate}'' removes it), got %', flow_configure.rate
      using errcode = '22023';
  end if;
  if flow_configure.per <= interval '0' or flow_configure.per > interval '1 day' then
    raise exception 'per must be more than 0 and at most 1 day, got %', flow_configure.per
      using errcode = '22023';
  end if;
  -- (1000: a key's rate is a slot row per start in the window, read in full
  -- when the key is at its rate)
  if flow_configure.key_rate not between 1 and 1000 then
    raise exception 'key_rate must be between 1 and 1000 starts per key_per (unlimit => ''{key_rate}'' removes it), got %', flow_configure.key_rate
      using errcode = '22023';
  end if;
  if flow_configure.key_per <= interval '0' or flow_configure.key_per > interval '1 day' then
    raise exception 'key_per must be more than 0 and at most 1 day, got %', flow_configure.key_per
      using errcode = '22023';
  end if;

  v_new := v_old;
  v_new.concurrency := case when 'concurrency' = any(v_drop) then null
                            else coalesce(flow_configure.concurrency, v_old.concurrency) end;
  v_new.ordered := coalesce(flow_configure.ordered, v_old.ordered);
  v_new.key_concurrency := case when 'key_concurrency' = any(v_drop) then null
                                when flow_configure.key_concurrency is not null then flow_configure.key_concurrency
                                when flow_configure.ordered then 1
                                else v_old.key_concurrency end;
  if 'key_concurrency' = any(v_drop) and flow_configure.ordered is null then
    v_new.ordered := false;
  end if;
  if v_new.ordered and v_new.key_concurrency is distinct from 1 then
    raise exception 'ordered keys run one job at a time: key_concurrency must be 1, got %', coalesce(v_new.key_concurrency::text, 'NULL')
      using errcode = '22023';
  end if;
  v_new.rate := case when 'rate' = any(v_drop) then null else coalesce(flow_configure.rate, v_old.rate) end;
  v_new.per := case when 'rate' = any(v_drop) then null
                    else coalesce(flow_configure.per, v_old.per, case when v_new.rate is not null then interval '1 second' end) end;
  if v_new.per is not null and v_new.rate is null then
    raise exception 'per needs a rate'
      using errcode = '22023';
  end if;
  v_new.key_rate := case when 'key_rate' = any(v_drop) then null else coalesce(flow_configure.key_rate, v_old.key_rate) end;
  v_new.key_per := case when 'key_rate' = any(v_drop) then null
                        else coalesce(flow_configure.key_per, v_old.key_per, case when v_new.key_rate is not null then interval '1 second' end) end;
  if v_new.key_per is not null and v_new.key_rate is null then
    raise exception 'key_per needs a key_rate'
      using errcode = '22023';
  end if;
  -- Only admitted jobs meet a claim, at most key_concurrency per key: that
  -- bounds the jobs a key at its rate has put off (sql/schema/075_key_rate.sql).
  if v_new.key_rate is not null and v_new.key_concurrency is null then
    raise exception 'a per-key rate needs key_concurrency (at most that many jobs of a key wait to start at once), got key_rate % without it', v_new.key_rate
      using errcode = '22023',
            hint = 'set key_concurrency too, e.g. q.configure(queue, key_concurrency => 100, key_rate => 10)';
  end if;

  -- (No lock on q_data.job: flow control's triggers exist from installation,
  -- sql/triggers/flow.sql; up to 0007 the first limit made them.)

  update q_data.queue qq
     set concurrency = v_new.concurrency,
         key_concurrency = v_new.key_concurrency,
         ordered = v_new.ordered,
         rate = v_new.rate,
         per = v_new.per,
         key_rate = v_new.key_rate,
         key_per = v_new.key_per
   where qq.id = flow_configure.queue_id;

  -- Queue slots 1..concurrency. Free rows above it go; held ones are never
  -- taken again once freed (claims take n <= concurrency only).
  if v_new.concurrency is not null then
    insert into q_data.queue_slot (queue_id, n)
    select flow_configure.queue_id, g from generate_series(1, v_new.concurrency) g
    on conflict do nothing;
  end if;
  delete from q_data.queue_slot s
   where s.ctid = any(array(
           select x.ctid from q_data.queue_slot x
            where x.queue_id = flow_configure.queue_id
              and x.job_id is null
              and x.n > coalesce(v_new.concurrency, 0)
              for update skip locked));

  -- Rate slots 1..rate, each free at once when made.
  if v_new.rate is not null then
    insert into q_data.rate_slot (queue_id, n)
    select flow_configure.queue_id, g from generate_series(1, v_new.rate) g
    on conflict do nothing;
  end if;
  delete from q_data.rate_slot r
   where r.queue_id = flow_configure.queue_id
     and r.n > coalesce(v_new.rate, 0);

  -- Per-key rate slots are made by claims as starts need them (revision
  -- 0008); those above the new rate go. Jobs it put off are waiting again when
  -- it changes: the next claim puts off, under the new rate, those that must
  -- still wait.
  delete from q_data.key_rate_slot r
   where r.queue_id = flow_configure.queue_id
     and r.n > coalesce(v_new.key_rate, 0);
  if (v_new.key_rate, v_new.key_per) is distinct from (v_old.key_rate, v_old.key_per) then
    with put_off as (
      update q_data.job j
         set state = 'w',
             run_at = least(j.run_at, clock_timestamp()),
             rate_wait = null
       where j.queue_id = flow_configure.queue_id and j.state = 's' and j.rate_wait
      returning j.ctid, j.key_slot)
    select count(*), array_agg(p.ctid) filter (where p.key_slot is null)
      into v_back, v_keyed
      from put_off p;
    -- Those without a key slot take one or are held (q.flow_admit).
    if v_keyed is not null then
      perform q.flow_admit(v_keyed);
    end if;
    if v_back > 0 then
      perform q.notify_always(array[flow_configure.queue_id]);
    end if;
  end if;

  -- Key limit removed: held jobs are claimable now.
  if v_new.key_concurrency is null and v_old.key_concurrency is not null then
    update q_data.job j set state = 'w'
     where j.queue_id = flow_configure.queue_id and j.state = 'h';
    perform q.notify_always(array[flow_configure.queue_id]);
  end if;
  -- Key limit raised: keys with held jobs get slots for them at once (made
  -- one per admitted job, by the sweep of this queue: the keys are listed for
  -- it). Keys with nothing held have no row to add (0007 made every known
  -- key's new slots here: 59.8 s for K 1 -> 1000 on 2,000 keys).
  if v_new.key_concurrency > v_old.key_concurrency then
    insert into q_data.key_recheck (queue_id, key)
    select distinct flow_configure.queue_id, h.concurrency_key
      from q_data.job h
     where h.queue_id = flow_configure.queue_id and h.state = 'h';
    perform q.flow_sweep(flow_configure.queue_id, 100000);
  end if;
end
$$;

comment on function q.flow_configure(integer, integer, integer, boolean, integer, interval, text[], integer, interval) is
  'Checks and stores a queue''s flow-control limits (22023 for a bad one, nothing written) and makes the slot rows they need.';

revoke all on function q.flow_configure(integer, integer, integer, boolean, integer, interval, text[], integer, interval) from public;
