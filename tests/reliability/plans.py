"""The plans pgq's functions really run: auto_explain (ANALYZE, BUFFERS) of the
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


def nested_plans(conn: psycopg.Connection[Any], query: str, params: Any = None) -> tuple[list[dict[str, Any]], int]:
    """Run query (superuser: LOAD); return the plan of every statement it ran, innermost first, and its row count."""
    notices: list[str] = []
    handler = notices.append
    conn.add_notice_handler(lambda diag: handler(diag.message_primary or ""))
    for statement in AUTO_EXPLAIN:
        conn.execute(statement)
    try:
        got = len(conn.execute(query, params).fetchall())
    finally:
        conn.execute("set auto_explain.log_min_duration = -1")
        conn.execute("reset client_min_messages")
    plans = []
    for text in notices:
        if not text.startswith("duration:"):
            continue
        body = json.loads(text.split("\n", 1)[1] if "\n" in text else text[text.index("{"):])
        plans.append(body["Plan"])
    return plans, got


def writes_job(plan: dict[str, Any]) -> bool:
    """Whether the statement inserts, updates or deletes rows of q_data.job (also from a CTE)."""
    return any(n.get("Node Type") == "ModifyTable" and n.get("Relation Name") == "job" for n in nodes(plan))


def claim_plan(conn: psycopg.Connection[Any], queue: str, n: int) -> tuple[dict[str, Any], int]:
    """Run q.claim(queue, n) and return the plan of its UPDATE and how many jobs it claimed."""
    plans, got = nested_plans(conn, "select * from q.claim(%s, %s)", (queue, n))
    updates = [p for p in plans if writes_job(p)]
    assert updates, "no plan of the claim's UPDATE among the notices"
    return updates[0], got


def buffers(plan: dict[str, Any]) -> int:
    """Shared buffers the statement touched (hit or read); the top node's counts include its children."""
    return int(plan.get("Shared Hit Blocks", 0)) + int(plan.get("Shared Read Blocks", 0))


def shape(plan: dict[str, Any]) -> list[str]:
    return [f"{n['Node Type']}" + (f" using {n['Index Name']}" if "Index Name" in n else "")
            + (f" on {n['Relation Name']}" if "Relation Name" in n else "") for n in nodes(plan)]


def sorts_only_claimed_rows(plan: dict[str, Any]) -> bool:
    """At most one Sort, over the CTE of the claim's UPDATE (the claimed rows, at most n, in claim
    order), never over the queue."""
    sorts = [x for x in nodes(plan) if x["Node Type"] == "Sort"]
    inputs = [[c["Node Type"] for c in x.get("Plans", []) if c.get("Parent Relationship") == "Outer"] for x in sorts]
    return len(sorts) <= 1 and all(i == ["CTE Scan"] for i in inputs)
