"""What the per-key rate tests share: a record of every rate-slot stamp a claim commits, and the
most of a list of times in any window (the tests' own, not pgq's; installed in the test database)."""

from __future__ import annotations

from datetime import datetime, timedelta

# Every stamp of a per-key rate slot a claim commits: the starts the SQL counted, to the microsecond,
# including claims whose client never saw the reply.
STAMPS = """
create table key_rate_stamp (
  id bigserial primary key, queue_id int, key text, n int, was timestamptz, used_at timestamptz);
grant all on key_rate_stamp, key_rate_stamp_id_seq to public;
create function key_rate_stamp_log() returns trigger language plpgsql
set search_path = pg_catalog, pg_temp as $$
begin
  insert into public.key_rate_stamp (queue_id, key, n, was, used_at)
  values (new.queue_id, new.key, new.n, old.used_at, new.used_at);
  return null;
end $$;
create trigger key_rate_stamp_log after update of used_at on q_data.key_rate_slot
  for each row when (new.used_at is distinct from old.used_at) execute function key_rate_stamp_log();
"""


def most_in_window(times: list[datetime], per: timedelta) -> tuple[int, datetime | None]:
    """The most of ``times`` in any window [t, t + per) starting at one of them, and that t."""
    times = sorted(times)
    most, at, j = 0, None, 0
    for i, t in enumerate(times):
        while t - times[j] >= per:
            j += 1
        if i - j + 1 > most:
            most, at = i - j + 1, times[j]
    return most, at
