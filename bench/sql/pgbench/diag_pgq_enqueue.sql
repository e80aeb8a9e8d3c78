select q.enqueue('bench', '{"userId": 1, "email": "user1@example.com", "template": "welcome-email"}');
