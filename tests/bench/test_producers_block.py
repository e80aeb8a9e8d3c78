"""The concurrent-producers block (bench/measures/producers.py, design.md#wake-ups-on-demand): its
scripts, settings and verdicts.

Speed is never asserted here: the bench measures it on a quiet machine.
"""

from __future__ import annotations

from bench.measures import producers as pr


def test_every_variant_runs_one_statement_per_transaction_and_only_off_turns_wake_ups_off() -> None:
    for variant in (pr.ON, pr.OFF, pr.NOBODY, pr.PLAIN, pr.PGMQ):
        assert pr.script(variant).count(";") == 1, variant
    assert pr.script(pr.ON) == pr.script(pr.OFF) == pr.script(pr.NOBODY) == "select q.enqueue('nb', '{\"a\":1}');\n"
    assert pr.script(pr.PLAIN).startswith("insert into plain_job ")
    assert "pgmq.send(" in pr.script(pr.PGMQ)
    assert [pr.pgoptions(v) for v in (pr.ON, pr.OFF, pr.NOBODY, pr.PLAIN)] == ["", "-c pgq.notify=off", "", ""]


def test_producer_counts_fit_the_servers_connections() -> None:
    assert pr.producer_counts((1, 8, 50, 200), 300) == [1, 8, 50, 200]
    assert pr.producer_counts((1, 8, 50, 200), 200) == [1, 8, 50, 180]
    assert pr.producer_counts((200, 300), 100) == [80]


def test_the_targets_compare_wake_ups_on_with_off_plain_insert_and_pgmq_at_8_and_50() -> None:
    med = {(pr.ON, 50): 3000.0, (pr.OFF, 50): 3200.0, (pr.PLAIN, 50): 4000.0, (pr.PGMQ, 50): 2900.0,
           (pr.ON, 8): 1000.0, (pr.OFF, 8): 2000.0, (pr.PLAIN, 8): 1100.0}
    got = {t.name: t.holds for t in pr.targets(med, [1, 8, 50])}
    assert got == {
        "8 producers: pgq with wake-ups ≥ 0.9x wake-ups off": False,
        "8 producers: pgq with wake-ups ≥ 0.8x a plain INSERT": True,
        "8 producers: pgq with wake-ups ahead of pgmq's send": None,  # pgmq not measured
        "50 producers: pgq with wake-ups ≥ 0.9x wake-ups off": True,
        "50 producers: pgq with wake-ups ≥ 0.8x a plain INSERT": False,
        "50 producers: pgq with wake-ups ahead of pgmq's send": True,
    }
    assert pr.targets(med, [1]) == []
