UPDATE jobs SET status='claimed', worker_id=:client_id::text, claimed_at=now()
 WHERE id = (SELECT id FROM jobs WHERE status='queued'
             ORDER BY created_at FOR UPDATE SKIP LOCKED LIMIT 1)
RETURNING id \gset
DELETE FROM jobs WHERE id = :id;
