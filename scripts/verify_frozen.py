#!/usr/bin/env python3
"""Guards for the migration history (run by `make verify` and `make test`).

* Frozen snapshots never change: every file under alembic/sql/ must match
  alembic/sql/SHA256SUMS. `--update` records new files (never changed ones:
  a landed snapshot that changes is an error either way).
* Exactly one Alembic head.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

from alembic.config import Config
from alembic.script import ScriptDirectory

ROOT = Path(__file__).resolve().parents[1]
FROZEN = ROOT / "alembic" / "sql"
SUMS = FROZEN / "SHA256SUMS"


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def main() -> int:
    recorded = {}
    if SUMS.exists():
        for line in SUMS.read_text().splitlines():
            checksum, name = line.split(maxsplit=1)
            recorded[name] = checksum
    actual = {str(p.relative_to(FROZEN)): digest(p) for p in sorted(FROZEN.rglob("*.sql"))}
    changed = [n for n in actual if n in recorded and recorded[n] != actual[n]]
    problems = [f"frozen snapshot changed: alembic/sql/{n}" for n in changed]
    problems += [f"frozen snapshot deleted: alembic/sql/{n}" for n in recorded if n not in actual]
    new = [n for n in actual if n not in recorded]
    if new and "--update" in sys.argv:
        recorded.update({n: actual[n] for n in new})
        SUMS.write_text("".join(f"{recorded[n]}  {n}\n" for n in sorted(recorded)))
    elif new:
        hint = "run make revision, or scripts/verify_frozen.py --update"
        problems += [f"frozen snapshot not recorded ({hint}): alembic/sql/{n}" for n in new]

    heads = ScriptDirectory.from_config(Config(str(ROOT / "alembic.ini"))).get_heads()
    if len(heads) != 1:
        problems.append(f"expected exactly one Alembic head, found {heads}")

    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
