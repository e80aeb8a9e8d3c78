select * from q.claim('bench', 1);
