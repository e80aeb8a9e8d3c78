"""What every measurement gets: the server, the profile, where to write, a log."""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from .cluster import Server
from .profile import Profile


@dataclass
class Context:
    server: Server
    profile: Profile
    out: Path  # the report's folder
    charts: Path  # where PNGs go (relative links from the report)
    started: float = field(default_factory=time.monotonic)
    # pgq@<revision> contenders beside head (claim sweep, enqueue): `--pgq-revision 0002`.
    revisions: tuple[str, ...] = ()

    def log(self, message: str) -> None:
        print(f"[bench {time.monotonic() - self.started:6.1f}s] {message}", file=sys.stderr, flush=True)

    def order(self, items: list, rep: int) -> list:
        """Alternate who goes first from one run to the next."""
        return items if rep % 2 == 0 else list(reversed(items))
