-- Every UPDATE that makes a keyed job waiting admits it (q.flow_admit,
-- revision 0012; up to 0011 a BEFORE UPDATE trigger did): it takes a key
-- slot, or is held when its key's slots are taken. Promotion of a scheduled
-- job and a child whose parents ended are in
-- scheduled_keyed_job_takes_its_slot_when_due.sql and
-- deps/keyed_child_takes_a_key_slot_when_ready.sql; here q.unblock and a key
-- rate changed while jobs are put off. Jobs without a key are left alone.
begin;
select plan(8);

-- q.unblock: a job on hold (its parent was cancelled, hold policy) with a key.
select q.configure('adm', key_concurrency => 1) \g /dev/null
select q.enqueue('adm', '{}', concurrency_key => 'k') as busy \gset
select q.enqueue('adm_parent', '{}') as parent \gset
select q.enqueue_after('adm', '{}', array[:parent], concurrency_key => 'k', on_parent_failure => 'hold') as child \gset
select q.enqueue_after('adm', '{}', array[:parent], on_parent_failure => 'hold') as plain \gset
select q.cancel(:parent) \g /dev/null
select is(q.unblock(:child), true, 'q.unblock lets the keyed child go on');
select is((select state::text || coalesce(key_slot::text, '-') from q_data.job where id = :child), 'h-',
  'its key''s one slot is taken: it is held, without a slot');
select is((select state::text || coalesce(key_slot::text, '-') from q_data.job where id = :busy), 'w1',
  'the job holding the slot keeps it');
select q.unblock(:plain) \g /dev/null
select is((select state::text || coalesce(key_slot::text, '-') from q_data.job where id = :plain), 'w-',
  'a child without a key just waits');
select q.complete(c.id, c.token) from q.claim('adm') c where c.id = :busy \g /dev/null
select is((select state::text || coalesce(key_slot::text, '-') from q_data.job where id = :child), 'w1',
  'the slot passed on: the child waits with it');

-- A key rate changed: put-off jobs wait again with the key slot they were
-- admitted with (a key rate needs key_concurrency), and nobody else takes one.
select q.configure('adm_rate', key_concurrency => 2, key_rate => 1, key_per => '1 hour') \g /dev/null
select q.enqueue('adm_rate', jsonb_build_object('i', g), concurrency_key => 'r') from generate_series(1, 3) g \g /dev/null
select is((select count(*)::integer from q.claim('adm_rate', 10)), 1, 'one start; one put off, one held');
select q.configure('adm_rate', key_rate => 2) \g /dev/null
select is((select array_agg(j.state::text || coalesce(j.key_slot::text, '-') order by j.id) from q_data.job j
            join q_data.queue qq on qq.id = j.queue_id where qq.name = 'adm_rate' and j.state <> 'r'),
  '{w2,h-}', 'the put-off job waits again with its slot; the held one stays held');
select is((select count(*)::integer from q_data.key_slot s join q_data.queue qq on qq.id = s.queue_id
            where qq.name = 'adm_rate'), 2, 'two key slot rows, one per admitted job');

select * from finish();
rollback;
