WITH c AS (
  UPDATE jobs SET status='claimed', worker_id=:client_id::text, claimed_at=now()
   WHERE id = ANY(ARRAY(SELECT id FROM jobs WHERE status='queued'
                        ORDER BY created_at FOR UPDATE SKIP LOCKED LIMIT 50))
  RETURNING id)
SELECT coalesce({q}(array_agg(id)::text), {q}('{}')) AS ids FROM c \gset
DELETE FROM jobs WHERE id = ANY(:ids::bigint[]);
