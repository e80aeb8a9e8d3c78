-- Observability, part 2 (design.md#stats-without-a-hot-counter): the row type of q.job_page.

-- One row of q.job_page: a job in a list, and the keyset to ask for the next page.
create type q.job_page_row as (
  id           bigint,
  queue        text,
  state        text,
  attempt      integer,
  priority     integer,
  run_at       timestamptz,
  lease_until  timestamptz,
  finished_at  timestamptz,
  last_error   text,
  payload      jsonb,
  next_after   jsonb
);

comment on type q.job_page_row is
  'A job in a list (q.job_page): last_error is the text of its last error; next_after is what to pass as after for the page that follows this row. id NULL: the search budget ran out here.';
