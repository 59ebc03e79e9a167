"""The history of ``ragbot eval`` runs: set, code commit, settings and per-question results."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import psycopg
from psycopg.rows import dict_row


@dataclass(frozen=True)
class EvalRun:
    id: int
    set_name: str
    kb: str
    code_commit: str | None
    settings: dict[str, Any]
    started_at: datetime
    results: list[dict[str, Any]]


def record_run(conn: psycopg.Connection[Any], *, set_name: str, kb: str,
               code_commit: str | None, settings: Mapping[str, Any],
               results: Sequence[Mapping[str, Any]]) -> int:
    """Store one finished run with its result lines (in one transaction); return its id."""
    with conn.transaction():
        row = conn.execute(
            "INSERT INTO eval_runs (set_name, kb, code_commit, settings) "
            "VALUES (%s, %s, %s, %s::jsonb) RETURNING id",
            [set_name, kb, code_commit, json.dumps(dict(settings), ensure_ascii=False)],
        ).fetchone()
        if row is None:  # INSERT ... RETURNING always returns the row
            raise RuntimeError("eval run was not stored")
        run_id = int(row[0])
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO eval_results (run_id, position, question_id, result) "
                "VALUES (%s, %s, %s, %s::jsonb)",
                [(run_id, i, str(r.get("id")), json.dumps(dict(r), ensure_ascii=False,
                                                          default=str))
                 for i, r in enumerate(results)])
    return run_id


def list_runs(conn: psycopg.Connection[Any], *, last: int = 50) -> list[EvalRun]:
    """The latest ``last`` runs of every set, oldest first, each with its results."""
    with conn.cursor(row_factory=dict_row) as cur:
        runs = cur.execute(
            "SELECT * FROM (SELECT id, set_name, kb, code_commit, settings, started_at, "
            "row_number() OVER (PARTITION BY set_name ORDER BY started_at DESC, id DESC) AS n "
            "FROM eval_runs) r WHERE n <= %s ORDER BY started_at, id", [last]).fetchall()
        results: dict[int, list[dict[str, Any]]] = {r["id"]: [] for r in runs}
        if runs:
            for row in cur.execute(
                    "SELECT run_id, result FROM eval_results WHERE run_id = ANY(%s) "
                    "ORDER BY run_id, position", [list(results)]):
                results[row["run_id"]].append(row["result"])
    return [EvalRun(r["id"], r["set_name"], r["kb"], r["code_commit"], r["settings"],
                    r["started_at"], results[r["id"]]) for r in runs]
