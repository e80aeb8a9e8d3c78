insert into q_data.job (queue_id, payload, run_at, state) values (1, '{"userId": 1, "email": "user1@example.com", "template": "welcome-email"}', clock_timestamp(), 'w');
