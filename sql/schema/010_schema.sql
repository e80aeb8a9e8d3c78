-- Schema q holds what applications call: pgq's functions and the composite
-- types they return. They run as the schema owner (SECURITY DEFINER).
create schema if not exists q;

comment on schema q is
  'pgq: a job queue inside PostgreSQL. Call the functions (q.enqueue, q.claim, q.complete, ...); the tables are private (schema q_data).';

revoke all on schema q from public;

-- Schema q_data holds pgq's tables and sequences, and no role but pgq's owner
-- has USAGE on it. Why a schema of their own: PostgreSQL queues a DDL lock
-- request (CREATE RULE: ACCESS EXCLUSIVE, CREATE TRIGGER: SHARE ROW
-- EXCLUSIVE) on a table *before* it checks that the caller owns it, and every
-- later access queues behind that request. With the tables in schema q, any
-- role with USAGE on q (pgq_viewer too) could stop every claim and enqueue for
-- as long as any other session held a read on q_data.job (a review measured 0
-- claims in 10 s), and then get 42501. Without USAGE on q_data, name
-- resolution fails (42501) before any lock is requested.
create schema if not exists q_data;

comment on schema q_data is
  'pgq''s tables and sequences, private to pgq''s owner: no role pgq grants has USAGE here, so none can queue a lock on them. Read them through the functions in schema q.';

revoke all on schema q_data from public;
