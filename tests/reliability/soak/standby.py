"""A primary and a physical streaming standby, both local clusters of the caller's own.

The primary is an embedded cluster (scripts/embedded-pg, as the soak cluster);
the standby is made from it with ``pg_basebackup -R`` and listens on its own
socket and port. ``synchronous=True`` names the standby in the primary's
``synchronous_standby_names`` (with the default ``synchronous_commit = on`` a
commit returns only once the standby has flushed it); otherwise it streams
asynchronously. :meth:`Pair.conninfo` is the multi-host conninfo clients use
(``target_session_attrs=read-write``): they follow whichever server accepts
writes.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import psycopg
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from .cluster import Cluster, _as_postgres, _root

STANDBY_NAME = "pgq_standby"


def _bindir() -> Path:
    return sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=lambda p: int(p.parent.name))[-1]


class Pair:
    def __init__(self, name: str, primary_port: int, standby_port: int, *, synchronous: bool = True) -> None:
        self.name = name
        self.synchronous = synchronous
        self.primary = Cluster(f"{name}-primary", primary_port)
        self.standby_root = _root(f"{name}-standby")
        self.standby_port = standby_port
        self.promoted = False

    # -- set-up -----------------------------------------------------------------------------

    def start_primary(self) -> None:
        """A fresh primary (any cluster left from an earlier run is removed first)."""
        self._remove()
        self.primary.start()

    def start_standby(self) -> None:
        """pg_basebackup from the primary, start it streaming, and (synchronous) make it the sync standby."""
        sock = self.standby_root / "run"
        data = self.standby_root / "data"
        self.standby_root.mkdir(parents=True, exist_ok=True)
        sock.mkdir(exist_ok=True)
        if os.geteuid() == 0:
            shutil.chown(self.standby_root, "postgres", "postgres")
            shutil.chown(sock, "postgres", "postgres")
        source = conninfo_to_dict(self.primary.server_url)
        self._pg("pg_basebackup", "-h", str(source["host"]), "-p", str(source["port"]), "-U", "postgres",
                 "-D", str(data), "-R", "-X", "stream", "-c", "fast")
        with (data / "postgresql.auto.conf").open("a") as conf:
            conf.write(f"primary_conninfo = 'host={source['host']} port={source['port']} user=postgres "
                       f"application_name={STANDBY_NAME}'\n")
        with (data / "postgresql.conf").open("a") as conf:
            conf.write(f"port = {self.standby_port}\nunix_socket_directories = '{sock}'\n")
        self._pg("pg_ctl", "-D", str(data), "-l", str(self.standby_root / "server.log"), "-w", "-t", "60", "start")
        with psycopg.connect(self.primary.server_url, autocommit=True) as conn:
            deadline = time.monotonic() + 30
            while not conn.execute("select exists (select from pg_stat_replication where application_name = %s"
                                   " and state = 'streaming')", (STANDBY_NAME,)).fetchone()[0]:
                assert time.monotonic() < deadline, "the standby is not streaming after 30 s"
                time.sleep(0.1)
            if self.synchronous:
                conn.execute(f"alter system set synchronous_standby_names = '{STANDBY_NAME}'")
                conn.execute("select pg_reload_conf()")
                while conn.execute("select sync_state from pg_stat_replication where application_name = %s",
                                   (STANDBY_NAME,)).fetchone()[0] != "sync":
                    assert time.monotonic() < deadline, "the standby is not synchronous after 30 s"
                    time.sleep(0.1)

    # -- addresses ------------------------------------------------------------------------------

    @property
    def standby_server_url(self) -> str:
        return make_conninfo(host=str(self.standby_root / "run"), port=str(self.standby_port), user="postgres",
                             dbname="postgres")

    def conninfo(self, dbname: str) -> str:
        """Both servers, the writable one wins: what workers and producers connect with."""
        primary = conninfo_to_dict(self.primary.server_url)
        return make_conninfo(host=f"{primary['host']},{self.standby_root / 'run'}",
                             port=f"{primary['port']},{self.standby_port}", user="postgres", dbname=dbname,
                             target_session_attrs="read-write", connect_timeout="3")

    # -- failover -------------------------------------------------------------------------------

    def promote_and_kill_primary(self) -> float:
        """Promote the standby, then stop the old primary with -m immediate; seconds until the new one writes."""
        started = time.monotonic()
        self._pg("pg_ctl", "-D", str(self.standby_root / "data"), "-w", "-t", "60", "promote")
        self.promoted = True
        self._pg("pg_ctl", "-D", str(self.primary.root / "data"), "-m", "immediate", "-w", "stop")
        with psycopg.connect(self.standby_server_url, autocommit=True) as conn:
            while conn.execute("select pg_is_in_recovery()").fetchone()[0]:
                time.sleep(0.05)
        return time.monotonic() - started

    def stop(self) -> None:
        for data in (self.primary.root / "data", self.standby_root / "data"):
            if (data / "postmaster.pid").exists():
                subprocess.run([*_as_postgres(), str(_bindir() / "pg_ctl"), "-D", str(data), "-m", "immediate",
                                "-w", "stop"], capture_output=True)
        self._remove()

    def _remove(self) -> None:
        for root in (self.primary.root, self.standby_root):
            if (root / "data" / "postmaster.pid").exists():
                subprocess.run([*_as_postgres(), str(_bindir() / "pg_ctl"), "-D", str(root / "data"), "-m",
                                "immediate", "-w", "stop"], capture_output=True)
            shutil.rmtree(root, ignore_errors=True)

    @staticmethod
    def _pg(tool: str, *args: str) -> None:
        done = subprocess.run([*_as_postgres(), str(_bindir() / tool), *args], capture_output=True, text=True,
                              cwd="/")
        assert done.returncode == 0, f"{tool} failed: {done.stderr[-2000:]}"
