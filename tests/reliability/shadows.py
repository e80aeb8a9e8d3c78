"""Shadows for suite 8: objects planted in ``public`` and ``pg_temp`` under the
names pgq's SQL uses (functions, operators, types, tables), each of which
writes to ``public.canary`` when it runs. A pgq function whose search_path
let any of them in would leave a row there (or return something else)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import psycopg

SQL_DIR = Path(__file__).resolve().parents[2] / "sql"
OPERATORS = ["=", "<>", "<", ">", "<=", ">=", "+", "-", "*", "/", "||", "->", "->>", "@>", "~", "!~"]
# pg_catalog functions with VARIADIC "any" arguments cannot be copied by
# signature; these concrete overloads would win over them on a bad path.
CONCRETE = {
    "jsonb_build_object": [("text", "text"), ("text", "integer"), ("text", "bigint"), ("text", "jsonb"),
                           ("text", "boolean"), ("text", "timestamp with time zone")],
    "jsonb_build_array": [("text",), ("jsonb",), ("integer",)],
    "format": [("text", "text"), ("text", "integer"), ("text", "text", "text")],
    "concat_ws": [("text", "text", "text")],
}
TABLES = ["job", "queue", "job_history", "inserted", "j", "qq", "w", "x", "h", "d", "live", "dead",
          "schedule", "schedule_fire", "s", "f", "fired", "cron_spec", "schedule_info"]
TYPES = ["uuid", "jsonb", "interval", "tid", "bigint", "text"]
PSEUDO = "('any', 'anyelement', 'anyarray', 'anynonarray', 'anyenum', 'anyrange', 'anymultirange', " \
         "'anycompatible', 'anycompatiblearray', 'anycompatiblenonarray', 'anycompatiblerange', " \
         "'anycompatiblemultirange', 'internal', 'cstring', 'record', 'trigger', 'event_trigger', " \
         "'language_handler', 'fdw_handler', 'index_am_handler', 'tsm_handler', 'table_am_handler', 'void', " \
         "'opaque', 'unknown', 'pg_ddl_command')"


def names_used_by_pgq() -> set[str]:
    """Every identifier followed by '(' in pgq's SQL (function calls, and some noise)."""
    text = "\n".join(p.read_text() for p in SQL_DIR.rglob("*.sql"))
    return {m.lower() for m in re.findall(r"\b([A-Za-z_][A-Za-z0-9_]*)\s*\(", text)}


def _catalog_functions(conn: psycopg.Connection[Any], names: set[str]) -> list[tuple[str, list[str], str, bool]]:
    rows = conn.execute(
        f"""
        select p.proname, array(select format_type(t, null) from unnest(p.proargtypes) t),
               format_type(p.prorettype, null), p.proretset
          from pg_proc p
         where p.pronamespace = 'pg_catalog'::regnamespace and p.prokind = 'f' and p.proname = any(%s)
           and p.provariadic = 0
           and not exists (select from unnest(p.proargtypes) t join pg_type y on y.oid = t
                            where y.typname in {PSEUDO} or y.typtype = 'p')
           and (select typname from pg_type where oid = p.prorettype) not in {PSEUDO}
           and (select typtype from pg_type where oid = p.prorettype) <> 'p'
        """,
        (sorted(names),),
    ).fetchall()
    return [(r[0], list(r[1]), r[2], r[3]) for r in rows]


def _catalog_operators(conn: psycopg.Connection[Any]) -> list[tuple[str, str, str, str]]:
    rows = conn.execute(
        f"""
        select o.oprname, format_type(o.oprleft, null), format_type(o.oprright, null), format_type(o.oprresult, null)
          from pg_operator o
          join pg_type l on l.oid = o.oprleft
          join pg_type r on r.oid = o.oprright
          join pg_type z on z.oid = o.oprresult
         where o.oprnamespace = 'pg_catalog'::regnamespace and o.oprname = any(%s)
           and l.typtype <> 'p' and r.typtype <> 'p' and z.typtype <> 'p'
           and l.typname not in {PSEUDO} and r.typname not in {PSEUDO}
        """,
        (OPERATORS,),
    ).fetchall()
    return [tuple(r) for r in rows]


def _function(schema: str, name: str, args: list[str], returns: str, setof: bool, body_call: str) -> str:
    params = ", ".join(f"a{i} {t}" for i, t in enumerate(args, 1))
    label = f"{schema}.{name}({', '.join(args)})".replace("'", "''")
    result = f"return query select * from {body_call};" if setof else f"return {body_call};"
    return (
        f'create function {schema}."{name}"({params}) returns {"setof " if setof else ""}{returns}'
        f" language plpgsql as $shadow$ begin insert into public.canary values ('{label}'); {result} end $shadow$"
    )


def plant(conn: psycopg.Connection[Any]) -> int:
    """Plant the shadows from this session (it needs CREATE on public); returns how many objects."""
    planted = 0
    used = names_used_by_pgq()
    with conn.transaction():
        for name, args, returns, setof in _catalog_functions(conn, used):
            call = f'pg_catalog."{name}"({", ".join(f"a{i}" for i in range(1, len(args) + 1))})'
            conn.execute(_function("public", name, args, returns, setof, call))
            planted += 1
        for name, signatures in CONCRETE.items():
            for args in signatures:
                call = f"pg_catalog.{name}({', '.join(f'a{i}' for i in range(1, len(args) + 1))})"
                ret = "text" if name in ("format", "concat_ws") else "jsonb"
                conn.execute(_function("public", name, list(args), ret, False, call))
                planted += 1
        for i, (op, left, right, result) in enumerate(_catalog_operators(conn)):
            fn = f"shadow_op_{i}"
            conn.execute(_function("public", fn, [left, right], result, False, f"a1 operator(pg_catalog.{op}) a2"))
            conn.execute(f"create operator public.{op} (leftarg = {left}, rightarg = {right}, function = public.{fn})")
            planted += 1
        for name in TYPES:
            conn.execute(f'create domain public."{name}" as pg_catalog.int2 check (public.canary_hit(\'type {name}\'))')
            planted += 1
        for name in TABLES:
            # A temp view that writes to the canary when scanned, with a row
            # that would change any result it leaked into.
            conn.execute(
                f'create temp view "{name}" as select 1::bigint as id, 1 as queue_id, \'w\'::"char" as state'
                f" where public.canary_hit('relation pg_temp.{name}')"
            )
            planted += 1
    return planted


CANARY = """
create table public.canary (what text);
grant insert, select on public.canary to public;
create function public.canary_hit(what text) returns boolean language plpgsql as $$
begin
  insert into public.canary values (what);
  return true;
end
$$;
"""
