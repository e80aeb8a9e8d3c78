"""Run pgbench on a script and read its throughput (and per-interval progress)."""

from __future__ import annotations

import re
import subprocess
import tempfile
from dataclasses import dataclass

from . import databases
from .cluster import Server

TPS = re.compile(r"^tps = ([0-9.]+) \(without initial connection time\)", re.M)
PROGRESS = re.compile(r"^progress: ([0-9.]+) s, ([0-9.]+) tps", re.M)
FAILED = re.compile(r"^number of failed transactions: (\d+)", re.M)


@dataclass
class PgbenchResult:
    tps: float
    progress: list[tuple[float, float]]  # (seconds, tps over the interval)
    failed: int


def quoting(mode: str) -> str:
    """How a script turns a \\gset value into a literal for the next statement.

    In simple mode pgbench pastes the variable's text into the SQL, so it must
    arrive quoted; in extended/prepared mode it is sent as a parameter.
    """
    return "quote_literal" if mode == "simple" else ""


def run(
    server: Server,
    dbname: str,
    script: str,
    clients: int,
    seconds: int,
    *,
    mode: str = "simple",
    progress: int = 0,
    options: str = "",
    transactions: int = 0,
    defines: dict[str, str] | None = None,
) -> PgbenchResult:
    """seconds of load (-T), or with transactions > 0 that many per client (-t: the quick profile).

    A script names pgq's tables as head does (q_data.job); each run fits it to dbname's pgq revision.
    """
    if f"{databases.HEAD_TABLES}." in script:
        with server.connect(dbname) as conn:
            script = databases.adapt(conn, script)
    with tempfile.NamedTemporaryFile("w", suffix=".sql") as f:
        f.write(script.replace("{q}", quoting(mode)))
        f.flush()
        length = ["-t", str(transactions)] if transactions else ["-T", str(seconds)]
        cmd = ["pgbench", "-n", "-c", str(clients), "-j", str(clients), *length, "-M", mode, "-f", f.name]
        if progress:
            cmd += ["-P", str(progress)]
        for k, v in (defines or {}).items():
            cmd += ["-D", f"{k}={v}"]
        env = server.libpq_env(dbname)
        if options:
            env["PGOPTIONS"] = options
        out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=seconds + 120)
    text = out.stdout + "\n" + out.stderr
    m = TPS.search(text)
    if out.returncode != 0 or not m:
        raise RuntimeError(f"pgbench failed ({out.returncode}): {text[-2000:]}")
    failed = FAILED.search(text)
    return PgbenchResult(
        tps=float(m.group(1)),
        progress=[(float(a), float(b)) for a, b in PROGRESS.findall(text)],
        failed=int(failed.group(1)) if failed else 0,
    )
