select coalesce({q}(array_agg(id)::text), {q}('{}')) as ids, coalesce({q}(array_agg(token)::text), {q}('{}')) as tokens from q.claim('bench', 50) \gset
select count(*) from q.complete_many(:ids::bigint[], :tokens::uuid[]);
