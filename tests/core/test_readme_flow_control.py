"""The psql examples of the manual's flow control page (docs/manual/flow-control.md) run as written."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def flow_control_blocks() -> list[str]:
    section = (ROOT / "docs" / "manual" / "flow-control.md").read_text()
    return re.findall(r"```sql\n(.*?)```", section, flags=re.S)


def test_every_flow_control_example_runs(db_url: str) -> None:
    blocks = flow_control_blocks()
    assert len(blocks) >= 5  # one per feature: concurrency, keys, ordered, rate, rate per key
    for block in blocks:
        result = subprocess.run(
            ["psql", db_url, "-qX", "-v", "ON_ERROR_STOP=1", "-c", block], capture_output=True, text=True
        )
        assert result.returncode == 0, f"{block}\n{result.stderr}"
