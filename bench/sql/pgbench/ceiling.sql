UPDATE ceiling SET n = n + 1 WHERE id = :client_id;
