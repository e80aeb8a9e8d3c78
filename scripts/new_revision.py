#!/usr/bin/env python3
"""Start a new Alembic revision and freeze the SQL it needs.

    scripts/new_revision.py "add queue rate limits"

Compares every file under sql/ with the newest frozen copy of it in
alembic/sql/<rev>/ and copies the ones that changed (or are new) into
alembic/sql/<new rev>/. The generated revision runs those copies on upgrade
and the previous copies on downgrade (a file new in this revision needs a
hand-written DROP in downgrade). Table changes are written inline in the
revision as deltas. Then run `make verify` to refresh the checksums.

A function whose signature changes needs a DROP FUNCTION first in the
revision: CREATE OR REPLACE would add an overload instead. Every upgrade ends
with the newest frozen sql/owner.sql, so what it created belongs to pgq_owner.
"""

from __future__ import annotations

import re
import shutil
import sys
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SQL = ROOT / "sql"
FROZEN = ROOT / "alembic" / "sql"
VERSIONS = ROOT / "alembic" / "versions"
# Files that describe whole-schema installs, not deltas.
WHOLE = {"install.sql", "uninstall.sql", "server_settings.sql", "roles.sql"}
# owner.sql is run by every revision (see below), not frozen again unless it changes.


def revisions() -> list[str]:
    return sorted(p.name.split("_", 1)[0] for p in VERSIONS.glob("[0-9][0-9][0-9][0-9]_*.py"))


def newest_frozen(relative: Path, revs: list[str]) -> Path | None:
    for rev in reversed(revs):
        candidate = FROZEN / rev / relative
        if candidate.is_file():
            return candidate
    return None


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    message = sys.argv[1]
    revs = revisions()
    new = f"{int(revs[-1]) + 1:04d}" if revs else "0001"
    slug = re.sub(r"[^a-z0-9]+", "_", message.lower()).strip("_")[:40]

    changed: list[tuple[Path, Path | None]] = []
    for path in sorted(SQL.rglob("*.sql")):
        relative = path.relative_to(SQL)
        if relative.name in WHOLE or relative.parts[0] == "schema":
            continue
        previous = newest_frozen(relative, revs)
        if previous is None or previous.read_bytes() != path.read_bytes():
            changed.append((relative, previous))
    if not changed:
        print("no function, trigger or internal file changed under sql/; write the delta by hand", file=sys.stderr)

    target = FROZEN / new
    for relative, _ in changed:
        (target / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(SQL / relative, target / relative)

    ups = "\n".join(f'    run_frozen("{new}", "{rel}")' for rel, _ in changed) or "    pass"
    # Objects a revision creates belong to pgq_owner (sql/owner.sql, since 0003):
    # every upgrade ends by running the newest frozen copy of owner.sql.
    owner = newest_frozen(Path("owner.sql"), revs + [new])
    if owner is not None:
        owner_rev = owner.parent.relative_to(FROZEN).parts[0]
        ups += f'\n    run_frozen("{owner_rev}", "owner.sql")  # last: pgq_owner owns it all'
    downs = "\n".join(
        f'    run_frozen("{prev.parent.relative_to(FROZEN).parts[0]}", "{rel}")'
        if prev
        else f"    # {rel} is new in this revision: drop what it creates here"
        for rel, prev in changed
    ) or "    pass"
    body = f'''"""{message}

Revision ID: {new}
Revises: {revs[-1] if revs else None}
Create Date: {datetime.now(timezone.utc).isoformat(timespec="seconds")}
"""

from __future__ import annotations

import sys
from pathlib import Path

from alembic import op  # noqa: F401  (for table deltas)

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from pgq_sql import run_frozen  # noqa: E402

revision = "{new}"
down_revision = {repr(revs[-1]) if revs else None}
branch_labels = None
depends_on = None


def upgrade() -> None:
{ups}


def downgrade() -> None:
{downs}
'''
    out = VERSIONS / f"{new}_{slug}.py"
    out.write_text(body)
    print(f"wrote {out.relative_to(ROOT)} and froze {len(changed)} file(s) under alembic/sql/{new}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
