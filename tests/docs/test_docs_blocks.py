"""Every fenced code block of the README and of docs/ runs, against a real database.

THE RULES (for whoever adds a block to README.md or docs/**/*.md):

* What runs: blocks tagged ``python``, ``sh``/``bash``/``shell`` and ``sql``/``psql``. Anything else
  (``ini``, ``toml``, ``text``, ``js``, ``go``, untagged) is shown, not run: tag example output or
  a directory tree ``text`` (or leave it untagged).
* Each markdown file gets its own fresh database with pgq migrated to head, and its own empty
  working directory; its blocks run in order there, like a reader following along.
  ``DATABASE_URL`` is that database. What a block may use without creating it:
  tables ``orders(id int primary key, total int)`` and ``users(email text primary key,
  mailed timestamptz)``; login roles ``app``, ``web_app``, ``billing_worker``, ``metrics``,
  ``dashboard_ro``; and in Python the
  names of PRELUDE below (``DATABASE_URL``, ``url``, ``engine``, ``Order``, ``send_email``).
* ``python``: a block whose first line is ``# <name>.py`` is that file: it is written to the
  working directory (later blocks import it; ``pgq worker <name>:...`` finds it) and must import
  cleanly. Any other Python block runs as a script, after ``from <name> import *`` of the file
  blocks above it in the same markdown file. Names do not carry from one script block to the next.
* ``sh``: run by ``bash -e -o pipefail`` with the checkout's ``.venv/bin`` first on PATH.
  ``export DATABASE_URL=...`` names the test's database instead of the one written.
  ``pip install ... pgq-client...`` installs the wheel built from this checkout (same extras) into
  a virtualenv of the file's own (made by its first such line; before the block starts, outside its
  TIMEOUT), which is first on PATH for the rest of the file: later Python and sh blocks run with
  what the reader installed, no more (nothing comes from an index under that name).
* ``sql``/``psql``: ``psql -X -v ON_ERROR_STOP=1`` on the database, so psql's ``\\gset`` and
  ``:'var'`` work (use them instead of made-up ids and tokens).
* A block still running after TIMEOUT seconds (an ``sh`` block: PER_COMMAND more for each command
  line after its first, since each ``pgq`` command starts a Python process, seconds on a loaded
  machine) gets SIGINT (a reader's Ctrl-C; workers then stop
  gracefully); it passes if it exits with status 0.
* A block that cannot run here goes into NOT_RUN, keyed by its file and the start of its first
  non-blank line, with the reason (an external service, minutes of runtime, a synopsis rather than a command). A
  NOT_RUN entry that matches no block fails the test, so the list stays true.
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
TIMEOUT = 20.0
PER_COMMAND = 4.0
RUN = {"python": "python", "sh": "sh", "bash": "sh", "shell": "sh", "sql": "sql", "psql": "sql"}

NOT_RUN: dict[tuple[str, str], str] = {
    ("docs/manual/worker-and-cli.md", "pgq migrate                                  # alembic upgrade head"):
        "a synopsis ([optional] arguments, a | b alternatives), not a script; each command is run by"
        " tests/worker/test_pgq_command.py",
    ("docs/manual/pgbouncer.md", 'pgq --database-url "postgresql://app@pgbouncer-host:6432/app" \\'):
        "needs a PgBouncer at pgbouncer-host; the worker behind a real PgBouncer in transaction mode is"
        " tests/worker/test_worker_database_trouble.py",
    ("docs/manual/testing.md", "# conftest.py"):
        "two files of a pytest suite in one block, around a signup() the page does not define;"
        " the plugin and run_jobs are tested in tests/worker/test_testing_helpers.py",
    ("docs/manual/operating.md", "pgq metrics --port 9632"):
        "a server on a fixed port that another test run on this shared machine may hold; the exporter is"
        " served and scraped in tests/observe/test_exporter.py",
    ("docs/manual/operating.md", "pgq dashboard                    # http://127.0.0.1:8080/"):
        "a server on a fixed port (8080) that another test run on this shared machine may hold; the"
        " dashboard is served and driven in headless Chromium by its own tests",
    ("docs/manual/benchmarks.md", "make bench            # about 43 minutes"):
        "20 minutes and more; make bench-quick runs in tests/bench/test_bench_quick.py",
}

FIXTURE_SQL = """
create table orders (id int primary key, total int);
create table users (email text primary key, mailed timestamptz);
do $$
declare r text;
begin
  foreach r in array array['app', 'web_app', 'billing_worker', 'metrics', 'dashboard_ro'] loop
    if not exists (select from pg_roles where rolname = r) then
      begin
        execute format('create role %I login', r);
      exception when duplicate_object or unique_violation then
        null;  -- another document's database, set up at the same moment (pytest -n), made it
      end;
    end if;
  end loop;
end
$$;
"""

PRELUDE = '''\
"""Names every Python block of the docs may use (tests/docs/test_docs_blocks.py)."""
import os

import psycopg
from sqlalchemy import Column, Integer, create_engine
from sqlalchemy.orm import DeclarativeBase

DATABASE_URL = os.environ["DATABASE_URL"]
url = DATABASE_URL
engine = create_engine("postgresql+psycopg://", creator=lambda: psycopg.connect(DATABASE_URL))


class _Base(DeclarativeBase):
    pass


class Order(_Base):
    __tablename__ = "orders"
    id = Column(Integer, primary_key=True)
    total = Column(Integer)


def send_email(payload):
    print("mail:", payload)
'''


@dataclass(frozen=True)
class Block:
    doc: str  # path relative to the repository
    line: int  # of the opening fence
    lang: str
    code: str

    @property
    def key(self) -> tuple[str, str]:
        first = next((ln for ln in self.code.splitlines() if ln.strip()), "")
        return (self.doc, first)

    @property
    def module(self) -> str | None:
        m = re.match(r"# ([A-Za-z_]\w*)\.py\s*$", self.code.split("\n", 1)[0])
        return m.group(1) if m else None

    def not_run(self) -> str | None:
        """The reason this block is in NOT_RUN, or None."""
        doc, first = self.key
        return next((why for (d, start), why in NOT_RUN.items() if d == doc and first.startswith(start)), None)

    def where(self) -> str:
        return f"{self.doc}:{self.line} ({self.lang})"


FENCE = re.compile(r"^```([\w+-]*)[^\n]*\n(.*?)^```\s*$", re.M | re.S)


def blocks_of(path: Path) -> list[Block]:
    text = path.read_text()
    found = []
    for m in FENCE.finditer(text):
        lang = RUN.get(m.group(1).lower())
        if lang:
            found.append(Block(str(path.relative_to(ROOT)), text.count("\n", 0, m.start()) + 1, lang, m.group(2)))
    return found


ALL = {str(p.relative_to(ROOT)): blocks_of(p) for p in DOCS}


def test_every_not_run_entry_names_a_block_that_exists() -> None:
    keys = {b.key for blocks in ALL.values() for b in blocks}
    stale = [k for k in NOT_RUN if not any(d == k[0] and first.startswith(k[1]) for d, first in keys)]
    assert not stale, f"NOT_RUN entries that match no block (edit or remove them): {stale}"


class Reader:
    """One markdown file's run: its database, its working directory, its PATH."""

    def __init__(self, url: str, home: Path, wheel: Callable[[], Path]) -> None:
        self.url, self.home, self.wheel = url, home, wheel
        self.path = [str(ROOT / ".venv" / "bin"), *os.environ.get("PATH", "").split(os.pathsep)]
        self.modules: list[str] = []
        (home / "readme_prelude.py").write_text(PRELUDE)

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
        env.update(DATABASE_URL=self.url, PATH=os.pathsep.join(self.path), COLUMNS="200", PYTHONUNBUFFERED="1")
        return env

    def run(self, command: list[str], timeout: float = TIMEOUT) -> subprocess.CompletedProcess[str]:
        started = subprocess.Popen(command, cwd=self.home, env=self.env(), stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True, start_new_session=True)
        try:
            out, _ = started.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(started.pid, signal.SIGINT)  # Ctrl-C
            try:
                out, _ = started.communicate(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(started.pid, signal.SIGKILL)
                out, _ = started.communicate()
                return subprocess.CompletedProcess(command, -9, out + "\n[killed: did not stop on SIGINT]")
        return subprocess.CompletedProcess(command, started.returncode, out)

    def python(self, block: Block) -> subprocess.CompletedProcess[str]:
        if block.module:
            (self.home / f"{block.module}.py").write_text(block.code)
            self.modules.append(block.module)
            return self.run(["python", "-c", f"import {block.module}"])
        head = "from readme_prelude import *\n" + "".join(f"from {m} import *\n" for m in self.modules)
        script = self.home / f"block_{block.line}.py"
        script.write_text(head + block.code)
        return self.run(["python", script.name])

    def sh(self, block: Block) -> subprocess.CompletedProcess[str]:
        lines = []
        for line in block.code.splitlines():
            stripped = line.strip()
            if re.match(r"export DATABASE_URL=", stripped):
                line = f"export DATABASE_URL={shlex.quote(self.url)}"
            elif re.match(r"pip install .*pgq-client", stripped):
                line = self.install_wheel(stripped)
            lines.append(line)
        script = self.home / f"block_{block.line}.sh"
        script.write_text("\n".join(lines) + "\n")
        commands = [ln for ln in block.code.splitlines()
                    if ln.strip() and not ln.strip().startswith("#") and not ln.rstrip().endswith("\\")]
        return self.run(["bash", "-e", "-o", "pipefail", script.name],
                        timeout=TIMEOUT + PER_COMMAND * max(0, len(commands) - 1))

    def install_wheel(self, line: str) -> str:
        """`pip install "pgq-client[a,b]"` -> a fresh virtualenv with the checkout's wheel and those extras."""
        m = re.search(r"pgq-client(\[[\w,]+\])?", line)
        extras = m.group(1) if m and m.group(1) else ""
        venv = self.home / "user-venv"
        if not venv.exists():
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True)
            self.path.insert(0, str(venv / "bin"))
        requirement = f"pgq-client{extras} @ {self.wheel().as_uri()}"
        # Installed here, outside the block's TIMEOUT (pip takes a while on a loaded machine).
        done = subprocess.run([str(venv / "bin" / "pip"), "install", "--quiet", requirement],
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr[-3000:]
        return f": installed {shlex.quote(requirement)} into {venv}"

    def sql(self, block: Block) -> subprocess.CompletedProcess[str]:
        script = self.home / f"block_{block.line}.sql"
        script.write_text(block.code)
        return self.run(["psql", self.url, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-f", script.name])


@pytest.fixture
def reader(new_database: Callable[[], str], tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Reader]:
    from pgq_client import migrations

    url = new_database()
    migrations.upgrade(url)
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(FIXTURE_SQL)

    def wheel() -> Path:
        return Path(request.getfixturevalue("dist").wheel)

    home = tmp_path / "reader"
    home.mkdir()
    yield Reader(url, home, wheel)


# Documents whose blocks GRANT pgq's cluster-wide roles to the fixture's login roles: on a fresh server two
# identical GRANTs at the same moment can fail (a duplicate pg_auth_members row), so under pytest -n they run
# on one xdist worker, one after the other.
GRANTING = ("docs/manual/getting-started.md", "docs/manual/administration.md")


def documents() -> list[Any]:
    return [pytest.param(d, marks=pytest.mark.xdist_group("docs_grants")) if d in GRANTING else d
            for d, b in ALL.items() if any(not x.not_run() for x in b)]


@pytest.mark.slow
@pytest.mark.parametrize("doc", documents())
def test_the_code_blocks_of_a_document_run_as_written(doc: str, reader: Reader) -> None:
    ran: list[str] = []
    for block in ALL[doc]:
        if block.not_run():
            continue
        started = time.monotonic()
        done: Any = getattr(reader, block.lang)(block)
        took = time.monotonic() - started
        assert done.returncode == 0, (
            f"{block.where()} failed (exit {done.returncode}) after {took:.1f} s:\n{block.code}\n--- output ---\n"
            f"{done.stdout[-4000:]}\n(blocks that ran before it: {ran})"
        )
        ran.append(f"{block.line}:{block.lang}")
    assert ran, f"{doc} has code blocks but none ran"
