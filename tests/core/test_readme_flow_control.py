"""The psql examples of the README's "Flow control" section run as written."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def flow_control_blocks() -> list[str]:
    readme = (ROOT / "README.md").read_text()
    section = readme.split("\n## Flow control\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sql\n(.*?)```", section, flags=re.S)


def test_every_flow_control_example_runs(db_url: str) -> None:
    blocks = flow_control_blocks()
    assert len(blocks) >= 5  # one per feature: concurrency, keys, ordered, rate, rate per key
    for block in blocks:
        result = subprocess.run(
            ["psql", db_url, "-qX", "-v", "ON_ERROR_STOP=1", "-c", block], capture_output=True, text=True
        )
        assert result.returncode == 0, f"{block}\n{result.stderr}"
