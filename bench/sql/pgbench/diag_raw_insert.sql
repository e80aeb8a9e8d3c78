INSERT INTO jobs (queue, payload) VALUES ('emails', '{"userId": 1, "email": "user1@example.com", "template": "welcome-email"}');
