-- Wake-ups on demand (design.md#wake-ups-on-demand), the claimer's side;
-- q.claim calls this at the end of a claim made with pgq.listening = on and an
-- owner key (the worker runtime sends the setting in its round statement; a
-- LISTEN loop of one's own can SET it). A claim that came back short (with
-- pgq.wait_when = empty: empty) means "wake me": the owner's session is
-- recorded as waiting for the queue (q_data.waiter), and the setting
-- pgq.claim_waiting says 'new' when this claim started the wait, so that the
-- caller claims once more before it sleeps (the race: see
-- sql/triggers/notify_enqueued.sql). Any other claim ends the wait: its worker
-- claims again without being told.
--
-- Only at READ COMMITTED (the worker's level): the trigger's argument needs
-- the claim after the wait to see everything committed before it began.
create or replace function q.note_wait(queue text, owner integer, idle boolean)
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
begin
  if note_wait.idle then
    -- Already waiting: nothing to write. A row a producer is taking (it has
    -- deleted it and not committed) still counts: its NOTIFY comes at its
    -- commit, or the row stays if it rolls back. Looked up first, because an
    -- INSERT ... ON CONFLICT against that row would wait for the producer's
    -- transaction, and a worker's claim must never wait for a producer.
    if exists (select from q_data.waiter w
                where w.queue = note_wait.queue and w.session_key = note_wait.owner) then
      return;
    end if;
    -- The wait must be committed before the caller's next claim: it is,
    -- since the caller claims again only after this transaction's answer.
    insert into q_data.waiter (queue, session_key)
    values (note_wait.queue, note_wait.owner)
    on conflict do nothing;
    if found then
      perform set_config('pgq.claim_waiting', 'new', true);
    end if;
  else
    -- No row (a busy worker): one index probe, no write. A row a producer
    -- holds is skipped, not waited for: that producer is taking it.
    if exists (select from q_data.waiter w
                where w.queue = note_wait.queue and w.session_key = note_wait.owner) then
      delete from q_data.waiter w
       where w.ctid = any(array(
               select x.ctid from q_data.waiter x
                where x.queue = note_wait.queue and x.session_key = note_wait.owner
                  for update skip locked));
    end if;
  end if;
end
$$;

comment on function q.note_wait(text, integer, boolean) is
  'Records (idle) or ends (not idle) the wait of session key owner for jobs of queue (q_data.waiter), for q.claim with pgq.listening = on; sets pgq.claim_waiting = ''new'' (transaction-local) when a wait begins.';

revoke all on function q.note_wait(text, integer, boolean) from public;
