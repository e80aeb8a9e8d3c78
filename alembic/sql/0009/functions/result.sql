create or replace function q.result(job_id bigint)
returns table (id bigint, queue text, state text, result jsonb, last_error text, attempts integer,
               finished_at timestamptz, progress jsonb)
language plpgsql
stable
security definer
set search_path = pg_catalog, pg_temp
as $$
begin
  if result.job_id is null then
    raise exception 'job id must not be null' using errcode = '22004';
  end if;
  return query select * from q.results(array[result.job_id]);
end
$$;

comment on function q.result(bigint) is
  'q.results for one job (named job_id: the row has a column id): one row with its state, result, last error, attempts, finish time and progress (state unknown for an id pgq has no trace of).';

revoke all on function q.result(bigint) from public;
grant execute on function q.result(bigint) to pgq_viewer, pgq_producer, pgq_worker;
