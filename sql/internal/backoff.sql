create or replace function q.backoff(failures integer, base interval, max interval)
returns interval
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
begin
  -- Exponential with "equal jitter": half the delay fixed, half random, so
  -- jobs that failed together do not all retry in the same instant.
  -- Computed in seconds (double precision): interval * 2^k overflows an
  -- interval ("out of range") long before the cap applies, e.g. a 1 minute
  -- base at failure 41 or a 1 hour base at failure 33.
  return make_interval(secs =>
           least(extract(epoch from backoff.max),
                 extract(epoch from backoff.base) * power(2, least(greatest(backoff.failures, 1) - 1, 40)))
           * (0.5 + random() * 0.5));
end
$$;

comment on function q.backoff(integer, interval, interval) is
  'Retry delay after the given number of failures: min(max, base * 2^(failures-1)), scaled by a random factor in [0.5, 1).';

revoke all on function q.backoff(integer, interval, interval) from public;
