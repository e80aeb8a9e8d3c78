"""A lane: the queues one handler serves, with its own slots (concurrency), claim size and lease.

A plain ``Worker(handler, queues)`` has one lane; an :class:`~pgq_client.App`'s
worker has one per task. Lanes share the worker's connections, claim loops,
listener and maintenance, never their slots: a slow task cannot take the
handlers of another. This is also where per-queue settings added later belong
(flow control, rate limits): a field here, read by the ledger when it sizes a
claim (:meth:`Ledger.take_round`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from ._handlers import is_async, wants_context
from ._payload import Converter, converter
from .options import check_queue_name


@dataclass(frozen=True)
class Lane:
    index: int
    queues: tuple[str, ...]
    handler: Callable[..., Any]
    concurrency: int
    batch_size: int | None = None
    lease: timedelta | None = None
    convert: Converter | None = None
    with_context: bool = False
    is_async: bool = False
    name: str = ""

    @classmethod
    def make(cls, index: int, handler: Callable[..., Any], queues: str | tuple[str, ...] | list[str], *,
             concurrency: int, batch_size: int | None = None, lease: timedelta | float | None = None,
             payload: Any = None, name: str = "") -> Lane:
        names = (queues,) if isinstance(queues, str) else tuple(queues)
        if not names or len(set(names)) != len(names):
            raise ValueError(f"queues must be one or more distinct names, got {list(names)}")
        for q in names:
            check_queue_name(q)
        if concurrency < 1:
            raise ValueError(f"concurrency must be at least 1, got {concurrency}")
        if batch_size is not None and not 1 <= batch_size <= 1000:
            raise ValueError(f"batch_size must be between 1 and 1000, got {batch_size}")
        if isinstance(lease, (int, float)):
            lease = timedelta(seconds=lease)
        if lease is not None and lease.total_seconds() < 1:
            raise ValueError(f"lease must be at least 1 second, got {lease}")
        return cls(index, names, handler, concurrency, batch_size, lease, converter(payload),
                   wants_context(handler), is_async(handler), name or getattr(handler, "__name__", "handler"))

    def describe(self) -> str:
        """The lane's effective settings in a log line: ``emails:concurrency=4,batch_size=auto,lease=60s``."""
        lease = f"{self.lease.total_seconds():g}s" if self.lease is not None else "queue's"
        return (f"{'+'.join(self.queues)}:concurrency={self.concurrency},batch_size={self.batch_size or 'auto'},"
                f"lease={lease}")

    @property
    def auto_batch(self) -> bool:
        """batch_size not given: the ledger sizes this lane's claims itself."""
        return self.batch_size is None

    @property
    def auto_claim_limit(self) -> int:
        """With automatic batch sizing, the most jobs one claim asks for: 20x the concurrency, at most 1000."""
        return min(20 * self.concurrency, 1000)

    def max_prefetch(self, loops: int) -> int:
        """Most claimed jobs of this lane that may wait for a free handler.

        batch_size given: batch_size - concurrency (the lane holds at most
        batch_size jobs, or the concurrency if larger). Automatic: each claim
        loop may have a claim of up to 20x the concurrency (at most 1000) on
        its way, so the lane holds at most loops x that; the ledger sizes the
        prefetch by Little's law below this bound, so only jobs much shorter
        than a round trip get near it.
        """
        if self.batch_size is None:
            return max(0, loops * self.auto_claim_limit - self.concurrency)
        return max(0, self.batch_size - self.concurrency)
