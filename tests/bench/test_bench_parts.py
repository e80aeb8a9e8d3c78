"""The bench's own moving parts, each once and fast: its redis-server, the Node harness's skip rule, report blocks.

Speed is never asserted here (BRIEF: benchmarks prove speed, tests prove the harness works).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg
import pytest

from bench import databases, redis, report
from bench.contenders import node
from bench.model import Section, Table

ROOT = Path(__file__).resolve().parents[2]


def test_bench_sql_names_pgq_tables_in_q_data_at_head_and_in_q_before_revision_0008() -> None:
    sql = "truncate q_data.job, q_data.job_history; select * from q.claim('bench', 1)"
    assert databases.for_schema(sql, "q_data") == sql
    assert databases.for_schema(sql, "q") == "truncate q.job, q.job_history; select * from q.claim('bench', 1)"
    frozen = ("select qq.name from q.queue qq join q.job x on true, q.job_history d;"
              " select q.stats(), null::q.queue_stats")
    assert databases.frozen_before_0008(frozen, "job", "job_history", "queue") == (
        "select qq.name from q_data.queue qq join q_data.job x on true, q_data.job_history d;"
        " select q.stats(), null::q.queue_stats")


def test_bench_set_up_runs_on_a_head_database_and_on_one_at_revision_0007(
    conn: psycopg.Connection[Any], new_database: Callable[[], str]
) -> None:
    old_url = new_database()
    migrate = subprocess.run([str(Path(sys.executable).parent / "alembic"), "upgrade", "0007"], cwd=ROOT,
                             env={**os.environ, "DATABASE_URL": old_url}, capture_output=True, text=True, timeout=300)
    assert migrate.returncode == 0, migrate.stderr[-2000:]
    with psycopg.connect(old_url, autocommit=True) as old:
        for db, schema in ((conn, "q_data"), (old, "q")):
            assert databases.table_schema(db) == schema
            db.execute("select q.configure(%s)", (databases.QUEUE,))
            databases.fill_pgq(db, 5)
            db.execute("select * from q.claim(%s, 2)", (databases.QUEUE,))
            databases.reset_pgq(db, 5)  # the 2 claimed jobs go, 2 new waiting ones come
            waiting = databases.execute(db, "select count(*) filter (where state = 'w') from q_data.job").fetchone()
            assert waiting[0] == 5
            index = databases.adapt(db, "q_data.job_claim_idx")
            assert db.execute("select %s::regclass::text", (index,)).fetchone()[0] == f"{schema}.job_claim_idx"


@pytest.mark.skipif(redis.binary() is None, reason="redis-server is not installed (bench/install-deps installs it)")
def test_bench_redis_server_answers_on_its_own_socket_and_is_gone_after_the_block() -> None:
    with redis.redis_server() as sock:
        assert redis.ping(sock)
        home = Path(sock).parent
        # No TCP listener of its own (port 0) and no persistence: a system Redis on 6379 is never touched.
        with socket.socket(socket.AF_UNIX) as s:
            s.connect(sock)
            s.sendall(b"CONFIG GET port\r\nCONFIG GET save\r\nCONFIG GET appendonly\r\n")
            reply = b""
            while reply.count(b"\r\n") < 15:
                reply += s.recv(4096)
        assert b"port\r\n$1\r\n0\r\n" in reply, reply
        assert b"save\r\n$0\r\n\r\n" in reply and b"appendonly\r\n$2\r\nno\r\n" in reply, reply
    assert not redis.ping(sock)
    assert not home.exists()
    with pytest.raises(OSError), socket.socket(socket.AF_UNIX) as s:
        s.connect(sock)


def test_node_contenders_are_skipped_with_a_reason_when_node_is_not_on_the_path(tmp_path: Path) -> None:
    old = os.environ["PATH"]
    os.environ["PATH"] = str(tmp_path)  # an empty folder: no node here
    try:
        why = node.missing()
        found, notes = node.available(server=None)  # type: ignore[arg-type]
    finally:
        os.environ["PATH"] = old
    assert why == "node is not installed"
    assert found == []
    assert notes and "Skipped: pg-boss, BullMQ on Redis and BullMQ on PostgreSQL" in notes[0]


def test_node_harness_lock_file_pins_exact_versions_of_the_seed_contenders() -> None:
    import json

    pkg = json.loads((ROOT / "bench" / "node" / "package.json").read_text())
    lock = json.loads((ROOT / "bench" / "node" / "package-lock.json").read_text())
    for name in ("pg-boss", "bullmq", "pg", "ioredis"):
        wanted = pkg["dependencies"][name]
        assert wanted[0].isdigit(), f"{name} is not pinned exactly: {wanted}"
        assert lock["packages"][f"node_modules/{name}"]["version"] == wanted


def test_standalone_blocks_replace_their_own_section_and_survive_a_full_report(tmp_path: Path) -> None:
    out = tmp_path / "BENCHMARKS.md"
    env = {"date": "today", "run time": "1 s"}

    def section(key: str, figure: str) -> Section:
        return Section(key=key, title=f"title {key}", method="how",
                       tables=[Table(caption="c", headers=["a"], rows=[[figure]])])

    report.write(out, [section("drain", "1")], env, "charts", "full", 1.0)
    report.write_blocks(out, [section("scale", "first")], env, "charts", "full")
    report.write_blocks(out, [section("sustained_long", "s")], env, "charts", "full")
    report.write_blocks(out, [section("scale", "second")], env, "charts", "full")
    text = out.read_text()
    assert text.count("<!-- bench:scale -->") == 1 and "| second |" in text and "| first |" not in text
    assert "<!-- bench:sustained_long -->" in text and "title drain" in text
    report.write(out, [section("drain", "2")], env, "charts", "full", 1.0)  # a later `make bench`
    text = out.read_text()
    assert "| 2 |" in text and "| 1 |" not in text
    assert set(report.blocks(out)) == {"scale", "sustained_long"} and "| second |" in text
