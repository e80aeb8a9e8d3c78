-- Since revision 0013 q.enqueue tests every argument rule in one expression
-- and calls q.check_job_options (and its own run_at and dedup_key tests) only
-- when that expression fails (design.md#few-expressions-per-call). The two
-- must agree: over a grid of values at and around every limit, q.enqueue
-- refuses exactly what q.check_job_options and the run_at/dedup_key rules
-- refuse, with the same SQLSTATE, and accepts everything else.
begin;
select plan(2);
\ir ../_helpers.psql

-- Payloads by name, made in the loop: a value read back from a table column
-- may come compressed, and the cap is measured on what the caller sends.
create temporary table grid (payload text, priority integer, max_attempts integer, run_at timestamptz, dedup_key text);
insert into grid
select p.v, pr.v, ma.v, ra.v, dk.v
  from (values ('empty'), ('json null'), ('nested'), ('1 MiB'), ('1 MiB + 1'), ('100 levels'), ('101 levels'),
               (null)) as p(v),
       (values (0), (-32768), (32767), (-32769), (32768), (null)) as pr(v),
       (values (null::integer), (1), (32767), (0), (-1), (32768)) as ma(v),
       (values (null::timestamptz), (now() + interval '1 hour'), ('infinity'), ('-infinity')) as ra(v),
       (values (null::text), ('k'), (repeat('k', 512)), (''), (repeat('k', 513))) as dk(v);

create temporary table verdicts (n integer generated always as identity, by_enqueue text, by_checks text);
do $$
declare
  g record;
  v_payload jsonb;
  v_enqueue text;
  v_checks text;
begin
  for g in select * from grid loop
    v_payload := case g.payload
      when 'empty' then '{}'::jsonb
      when 'json null' then 'null'::jsonb
      when 'nested' then '[1, {"a": 2}]'::jsonb
      when '1 MiB' then to_jsonb(repeat('a', 1048576 - 12))
      when '1 MiB + 1' then to_jsonb(repeat('a', 1048576 - 11))
      when '100 levels' then (repeat('[', 100) || repeat(']', 100))::jsonb
      when '101 levels' then (repeat('[', 101) || repeat(']', 101))::jsonb
    end;
    begin
      perform q.enqueue('one-test', v_payload, run_at => g.run_at, priority => g.priority,
                        max_attempts => g.max_attempts, dedup_key => g.dedup_key);
      v_enqueue := 'ok';
    exception when others then
      v_enqueue := sqlstate;
    end;
    begin
      perform q.check_job_options(v_payload, g.priority, g.max_attempts);
      if not isfinite(g.run_at) or octet_length(g.dedup_key) not between 1 and 512 then
        v_checks := '22023';
      else
        v_checks := 'ok';
      end if;
    exception when others then
      v_checks := sqlstate;
    end;
    insert into verdicts (by_enqueue, by_checks) values (v_enqueue, v_checks);
  end loop;
end
$$;

select is((select count(*) from verdicts where by_enqueue is distinct from by_checks), 0::bigint,
  'q.enqueue refuses exactly what the checks refuse, with the same SQLSTATE, over the whole grid');
select cmp_ok((select count(*) from verdicts where by_enqueue = 'ok'), '>', 0::bigint,
  '(the grid holds accepted calls as well as refused ones)');

select * from finish();
rollback;
