"""The plan q.claim really runs: auto_explain (ANALYZE, BUFFERS) of the
statements nested inside the function, sent to this session as LOG notices."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import psycopg

AUTO_EXPLAIN = [
    "load 'auto_explain'",
    "set auto_explain.log_min_duration = 0",
    "set auto_explain.log_nested_statements = on",
    "set auto_explain.log_analyze = on",
    "set auto_explain.log_buffers = on",
    "set auto_explain.log_timing = off",
    "set auto_explain.log_format = json",
    "set client_min_messages = log",
]


def nodes(plan: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Every node of a plan tree, InitPlans and SubPlans included."""
    stack = [plan]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(node.get("Plans", []))


def claim_plan(conn: psycopg.Connection[Any], queue: str, n: int) -> tuple[dict[str, Any], int]:
    """Run q.claim(queue, n) (superuser: LOAD) and return the plan of its UPDATE and how many jobs it claimed."""
    notices: list[str] = []
    handler = notices.append
    conn.add_notice_handler(lambda diag: handler(diag.message_primary or ""))
    for statement in AUTO_EXPLAIN:
        conn.execute(statement)
    try:
        got = len(conn.execute("select * from q.claim(%s, %s)", (queue, n)).fetchall())
    finally:
        conn.execute("set auto_explain.log_min_duration = -1")
        conn.execute("reset client_min_messages")
    for text in notices:
        if not text.startswith("duration:"):
            continue
        body = json.loads(text.split("\n", 1)[1] if "\n" in text else text[text.index("{"):])
        plan = body["Plan"]
        if plan.get("Node Type") == "ModifyTable" and plan.get("Relation Name") == "job":
            return plan, got
    raise AssertionError(f"no plan of the claim's UPDATE among {len(notices)} notices: {notices[:3]}")


def buffers(plan: dict[str, Any]) -> int:
    """Shared buffers the statement touched (hit or read); the top node's counts include its children."""
    return int(plan.get("Shared Hit Blocks", 0)) + int(plan.get("Shared Read Blocks", 0))


def shape(plan: dict[str, Any]) -> list[str]:
    return [f"{n['Node Type']}" + (f" using {n['Index Name']}" if "Index Name" in n else "")
            + (f" on {n['Relation Name']}" if "Relation Name" in n else "") for n in nodes(plan)]
