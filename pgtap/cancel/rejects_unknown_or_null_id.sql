-- An id pgq does not know raises P0002; a NULL id 22004.
begin;
select plan(2);

select throws_ok($$ select q.cancel(999999999) $$, 'P0002', null, 'an unknown id raises P0002');
select throws_ok($$ select q.cancel(null) $$, '22004', null, 'a NULL id raises 22004');

select * from finish();
rollback;
