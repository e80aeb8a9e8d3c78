"""Which queue is worth a claim (``worker/_hints.py``): round robin, hints, deferrals and debounced notifications,
driven by made-up clocks."""

from __future__ import annotations

from pgq_client.worker._hints import NOTIFY_DEBOUNCE, ClaimHints, Notice


def test_the_claim_hints_round_robin_over_queues_with_work_and_a_hint_beats_a_short_claim() -> None:
    hints = ClaimHints(("a", "b"))
    assert hints.pick() == ("a", 0) and hints.pick() == ("b", 0)
    hints.claimed("a", 5, 2, 0, 0.0)  # short: no more work in a
    assert hints.pick() == ("b", 0) and hints.pick() == ("b", 0)
    queue, count = hints.pick()  # type: ignore[misc]
    hints.hint("b")  # a NOTIFY while the claim of b is on its way
    hints.claimed("b", 5, 0, count, 0.0)
    assert hints.pick() == ("b", 1), "the hint wins over the short claim"
    assert hints.pick(allowed={"a"}) is None
    assert not hints.hint("not ours")


def test_a_rate_limited_queue_is_hinted_again_when_its_next_slot_frees() -> None:
    hints = ClaimHints(("limited", "other"))
    queue, count = hints.pick()  # type: ignore[misc]
    hints.claimed("limited", 10, 3, count, 0.0)  # cut short by the rate
    hints.defer("limited", 100.5)
    hints.defer("limited", 100.2)  # the earlier time wins
    hints.defer("unknown", 1.0)  # not ours: ignored
    assert hints.next_due() == 100.2
    assert not hints.worth("limited")
    assert not hints.release_due(100.1)
    assert hints.release_due(100.2) and hints.worth("limited") and hints.next_due() is None


def flood(hints: ClaimHints, start: float, seconds: float, every: float = 0.001) -> tuple[int, int]:
    """Notifications of queue "a" every ``every`` seconds; a claim whenever the hints say one is worth it
    (each takes 1 ms and finds nothing), and the deferred claims the supervisor releases. Returns
    (claims, notifications)."""
    claims = notes = 0
    now = start
    in_flight: tuple[float, int] | None = None  # (comes back at, hint count when taken)
    while now < start + seconds:
        hints.release_due(now)
        if in_flight is not None and now >= in_flight[0]:
            hints.claimed("a", 10, 0, in_flight[1], now)
            in_flight = None
        hints.notified("a", now)
        notes += 1
        if in_flight is None:
            picked = hints.pick()
            if picked is not None:
                claims += 1
                in_flight = (now + 0.001, picked[1])
        now += every
    return claims, notes


def test_a_flood_of_notifications_costs_at_most_one_empty_claim_per_queue_per_debounce_slice() -> None:
    hints = ClaimHints(("a",))
    hints.claimed("a", 10, 0, 0, 0.0)  # the worker's first look found nothing
    claims, notes = flood(hints, 1.0, 10.0)
    slices = 10.0 / NOTIFY_DEBOUNCE
    print(f"{notes} notifications in 10 s, {claims} claims")
    assert claims <= slices + 2, f"{claims} claims for {slices:.0f} slices"
    assert claims >= slices * 0.9, "the flood still gets its claim every slice: a real job would start"


def test_a_notification_in_a_quiet_slice_claims_at_its_end_and_a_claim_that_finds_jobs_ends_the_slice() -> None:
    hints = ClaimHints(("a", "b"))
    assert hints.notified("a", 1.0) is Notice.CLAIM
    _, count = hints.pick()  # type: ignore[misc]
    hints.claimed("a", 10, 0, count, 1.002)  # empty: a quiet slice until 1.102
    assert hints.notified("a", 1.05) is Notice.LATER and not hints.worth("a")
    assert hints.take_sooner() and not hints.take_sooner(), "the supervisor's timer is told once"
    assert hints.next_due() == 1.002 + NOTIFY_DEBOUNCE
    assert hints.notified("b", 1.05) is Notice.CLAIM, "another queue is not held back"
    assert hints.notified("ours?", 1.05) is Notice.IGNORE
    assert hints.release_due(1.102) and hints.worth("a")
    assert hints.notified("a", 1.103) is Notice.COMING, "the slice's one claim is coming: no second one"
    _, count = hints.pick(allowed={"a"})  # type: ignore[misc]
    hints.claimed("a", 10, 3, count, 1.104)  # it found jobs: no slice any more
    assert hints.notified("a", 1.105) is Notice.CLAIM


def test_a_hint_during_an_empty_claim_a_notification_asked_for_waits_for_the_slice_end() -> None:
    hints = ClaimHints(("a",))
    hints.notified("a", 1.0)
    _, count = hints.pick()  # type: ignore[misc]
    hints.notified("a", 1.0005)  # another one while the claim is on its way: it counts as a hint
    hints.claimed("a", 10, 0, count, 1.001)
    assert not hints.worth("a") and hints.next_due() == 1.001 + NOTIFY_DEBOUNCE, "one empty claim per slice"


def test_empty_claims_no_notification_asked_for_start_no_slice() -> None:
    hints = ClaimHints(("a",))
    hints.claimed("a", 10, 0, 0, 1.0)  # the poll's claim found nothing
    assert hints.notified("a", 1.01) is Notice.CLAIM, "a job enqueued just after a poll starts at once"


def test_an_empty_claim_a_limit_cut_short_starts_no_slice_so_the_next_freed_slot_claims_at_once() -> None:
    hints = ClaimHints(("limited",))
    hints.notified("limited", 1.0)
    _, count = hints.pick()  # type: ignore[misc]
    hints.claimed("limited", 10, 0, count, 1.001, limited=True)  # every slot taken: jobs wait behind the limit
    assert hints.notified("limited", 1.01) is Notice.CLAIM, "the freed slot's NOTIFY is not held back"


def test_a_listening_worker_claims_a_queue_until_a_claim_comes_back_empty() -> None:
    # Wake-ups on demand: only an empty claim records the wait that makes enqueues notify.
    hints = ClaimHints(("a",), until_empty=True)
    _, count = hints.pick()  # type: ignore[misc]
    hints.claimed("a", 10, 3, count, 0.0)
    assert hints.worth("a"), "short but not empty: nobody would tell us about the next job"
    _, count = hints.pick()  # type: ignore[misc]
    hints.claimed("a", 10, 0, count, 0.0)
    assert not hints.worth("a"), "empty: the claim recorded the wait, a NOTIFY will come"
    poller = ClaimHints(("a",))
    _, count = poller.pick()  # type: ignore[misc]
    poller.claimed("a", 10, 3, count, 0.0)
    assert not poller.worth("a"), "a worker that does not listen stops at a short claim, as before"


def test_an_empty_claim_that_was_on_its_way_when_another_found_jobs_does_not_stop_the_claims() -> None:
    # Two claim loops: B found jobs (and so ended the wait A's empty claim may have seen as begun).
    hints = ClaimHints(("a",), until_empty=True)
    _, count_a = hints.pick()  # type: ignore[misc]
    _, count_b = hints.pick()  # type: ignore[misc]
    hints.claimed("a", 10, 10, count_b, 0.0)
    hints.claimed("a", 10, 0, count_a, 0.0)
    assert hints.worth("a")


def test_a_claim_cut_short_by_a_limit_stops_at_short_even_when_listening() -> None:
    hints = ClaimHints(("limited",), until_empty=True)
    _, count = hints.pick()  # type: ignore[misc]
    hints.claimed("limited", 10, 2, count, 0.0, limited=True)
    assert not hints.worth("limited"), "the next freed slot notifies (q.flow_want)"
