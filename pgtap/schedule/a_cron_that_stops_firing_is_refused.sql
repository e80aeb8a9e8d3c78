-- A cron expression whose days are more than 8 years apart (q.cron_next
-- searches 8 years ahead) would fire once and then stop without a word:
-- '0 0 29 2 */7' (Feb 29 on a Sunday: 2032, then 2060) was accepted by 0007
-- and stopped after its 2032 slot. It is refused at write time (22023), as
-- one that matches no day at all; every-leap-day (8 years apart across 2100)
-- is accepted.
begin;
select plan(6);

select throws_ok($$ select q.schedule('rare', '0 0 29 2 */7', 'clock') $$, '22023',
  'cron expression "0 0 29 2 */7" fires on days up to 40.0 years apart; pgq needs a slot at least every 8 years',
  'Feb 29 on a Sunday is refused (22023), naming the gap');
select throws_ok($$ select q.schedule('never', '0 0 30 2 *', 'clock') $$, '22023', null,
  'February 30 is refused (22023)');
select is((select count(*)::integer from q_data.schedule), 0, 'nothing written');
select lives_ok($$ select q.schedule('leap', '0 0 29 2 *', 'clock') $$, 'every leap day is accepted');
select is(q.cron_longest_gap(q.cron_parse('0 0 29 2 *')), 2921, 'its longest gap is 2096-02-29 to 2104-02-29');
select lives_ok($$ select q.schedule('fridays', '0 0 13 * 5', 'clock') $$,
  'both day fields restricted = either matches (the 13th or a Friday)');

select * from finish();
rollback;
