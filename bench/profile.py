"""How big and how long each measurement is: the full run and the quick one."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Profile:
    name: str
    reps: int  # runs per figure; the table shows their median
    sweep_clients: tuple[int, ...]
    sweep_seconds: int
    backlog: int  # the claim-rate article's 1.2M-row backlog
    sustained_seconds: int
    sustained_backlog: int
    drain_jobs: int
    drain_cap_s: float  # a capped run reports jobs done / cap (the Node benchmark's method)
    enqueue_one: int
    enqueue_inflight: int
    enqueue_bulk: int
    pickup_jobs: int  # per run; the percentiles pool all runs
    pickup_rate: float
    pickup_idle_s: float  # workers idle this long before the first job
    killed_reps: int
    storage_jobs: int
    history_rows: int
    history_waiting: int
    history_seconds: int
    seed000_workers: tuple[int, ...]
    seed000_seconds: float
    realwork_jobs: int
    realwork_cap_s: float
    # bench/measures/schedules.py
    schedules_ticks: int = 50  # `every 1 second` schedules for the lateness figure
    schedules_lateness_s: float = 60.0
    schedules_reap_calls: int = 300
    schedules_claim_waiting: int = 200_000
    schedules_claim_seconds: int = 5
    schedules_many: int = 10_000  # schedules defined for the reap-turn and claims figures
    drain_workers: tuple[int, ...] = (1, 10)
    pgbench_transactions: int = 0  # > 0: short pgbench runs by count, not time (quick profile)
    # make bench-scale (bench/measures/scale.py)
    scale_sizes: tuple[int, ...] = (10_000, 100_000, 1_000_000, 10_000_000)  # waiting jobs
    scale_transactions: int = 1000  # per client and pgbench point (at most half the backlog in all)
    scale_queues: tuple[int, ...] = (1, 100, 10_000)
    scale_running: tuple[int, ...] = (0, 10_000, 100_000)
    scale_history: tuple[int, ...] = (0, 1_000_000, 10_000_000)
    scale_history_waiting: int = 200_000
    scale_idle_queues: int = 10_000
    # make bench-sustained (bench/measures/sustained_long.py)
    sustained_long_minutes: float = 30.0  # per server configuration; --minutes overrides
    sustained_long_interval_s: float = 30.0
    sustained_long_capacity_s: float = 20.0
    # observability (bench/measures/observe.py): q.stats at this many waiting jobs over these queues,
    # and the hot path with and without the throughput tally
    observe_jobs: int = 10_000_000
    observe_queues: int = 100
    observe_stats_calls: int = 7
    observe_backlog: int = 200_000
    observe_seconds: int = 2
    observe_reps: int = 9
    observe_loop_rounds: int = 15
    observe_loop_cycles: int = 1000
    # concurrent producers (bench/measures/producers.py): pgbench clients, seconds per run
    producers_clients: tuple[int, ...] = (1, 8, 50, 200)
    producers_seconds: int = 5


FULL = Profile(
    name="full",
    reps=3,
    sweep_clients=(1, 2, 4, 8, 16),
    sweep_seconds=2,
    backlog=1_200_000,
    sustained_seconds=60,
    sustained_backlog=1_200_000,
    drain_jobs=50_000,
    drain_cap_s=2.0,
    enqueue_one=5_000,
    enqueue_inflight=5_000,
    enqueue_bulk=20_000,
    pickup_jobs=100,
    pickup_rate=20.0,
    pickup_idle_s=0.5,
    killed_reps=3,
    storage_jobs=100_000,
    history_rows=1_800_000,
    history_waiting=200_000,
    history_seconds=3,
    seed000_workers=(1, 2, 4, 8, 16, 32, 64, 128),
    seed000_seconds=2.0,
    realwork_jobs=20_000,
    realwork_cap_s=4.0,
)

QUICK = Profile(
    name="quick",
    reps=1,
    sweep_clients=(2,),
    sweep_seconds=1,
    backlog=50_000,
    sustained_seconds=2,
    sustained_backlog=20_000,
    drain_jobs=300,
    drain_cap_s=1.0,
    enqueue_one=200,
    enqueue_inflight=500,
    enqueue_bulk=1_000,
    pickup_jobs=5,
    pickup_rate=50.0,
    pickup_idle_s=0.4,
    killed_reps=1,
    storage_jobs=2_000,
    history_rows=10_000,
    history_waiting=5_000,
    history_seconds=1,
    seed000_workers=(4,),
    seed000_seconds=0.5,
    realwork_jobs=100,
    realwork_cap_s=2.0,
    pgbench_transactions=200,
    drain_workers=(10,),
    scale_sizes=(1_000, 10_000),
    scale_transactions=50,
    scale_queues=(1, 10, 100),
    scale_running=(0, 1_000),
    scale_history=(0, 10_000),
    scale_history_waiting=5_000,
    scale_idle_queues=100,
    schedules_ticks=20,
    schedules_lateness_s=8.0,
    schedules_reap_calls=50,
    schedules_claim_waiting=5_000,
    schedules_claim_seconds=1,
    schedules_many=1_000,
    observe_jobs=30_000,
    observe_queues=10,
    observe_stats_calls=3,
    observe_backlog=20_000,
    observe_seconds=1,
    observe_reps=1,
    observe_loop_rounds=2,
    observe_loop_cycles=100,
    sustained_long_minutes=0.1,
    sustained_long_interval_s=2.0,
    sustained_long_capacity_s=2.0,
    producers_clients=(1, 8),
    producers_seconds=1,
)

PROFILES = {p.name: p for p in (FULL, QUICK)}
