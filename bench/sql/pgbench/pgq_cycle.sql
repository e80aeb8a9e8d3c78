select id, {q}(token::text) as token from q.claim('bench', 1) \gset
select q.complete(:id, :token::uuid);
