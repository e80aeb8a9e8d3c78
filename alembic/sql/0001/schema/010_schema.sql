-- Schema q holds every pgq object. Nothing in it is for direct use by
-- applications: they call the functions, which run as the schema owner.
create schema if not exists q;

comment on schema q is
  'pgq: a job queue inside PostgreSQL. Call the functions (q.enqueue, q.claim, q.complete, ...); the tables are private.';

revoke all on schema q from public;
