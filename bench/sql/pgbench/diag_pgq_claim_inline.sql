update q_data.job j
   set state = 'r', attempt = j.attempt + 1, token = gen_random_uuid(),
       lease_until = clock_timestamp() + interval '5 minutes', owner = null
 where j.ctid = any(array(
         select w.ctid from q_data.job w
          where w.queue_id = 1 and w.state = 'w'
          order by w.priority desc, w.run_at
          limit 1
            for update skip locked))
returning j.id, j.payload, j.attempt, j.token, j.lease_until;
