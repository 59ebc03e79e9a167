"""Turn traces: the full path of one answered question, kept for debugging and feedback.

A trace holds the question, the rewrite, the route, every search with its chunk ids, the
cited chunks, the answer and each node's input/output snapshot (see agent.tracing).
Secret-shaped text (a token or password a user pasted into a question) is masked before
anything is stored.
"""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from store.redaction import redact_value

_COLUMNS = ("trace_id, thread_id, kb, user_id, question, rewritten_query, route, rounds, "
            "refused, answer, latency_ms, record, created_at")


def save_trace(conn: psycopg.Connection, record: dict[str, Any]) -> None:
    """Insert (or replace) the trace ``record["trace_id"]``, secrets masked."""
    record = redact_value(record)
    conn.execute(
        """
        INSERT INTO agent_traces (trace_id, thread_id, kb, user_id, question, rewritten_query,
                                  route, rounds, refused, answer, latency_ms, record)
        VALUES (%(trace_id)s, %(thread_id)s, %(kb)s, %(user)s, %(question)s,
                %(rewritten_query)s, %(route)s, %(rounds)s, %(refused)s, %(answer)s,
                %(latency_ms)s, %(record)s)
        ON CONFLICT (trace_id) DO UPDATE SET record = EXCLUDED.record,
            answer = EXCLUDED.answer, route = EXCLUDED.route, rounds = EXCLUDED.rounds,
            refused = EXCLUDED.refused, latency_ms = EXCLUDED.latency_ms
        """,
        {**{k: record.get(k) for k in ("trace_id", "thread_id", "kb", "user", "question",
                                       "rewritten_query", "route", "rounds", "refused",
                                       "answer", "latency_ms")},
         "record": Jsonb(record)},
    )


def get_trace(conn: psycopg.Connection, trace_id: str) -> dict[str, Any] | None:
    """The stored trace ``trace_id`` (the full record plus ``created_at``), or None."""
    with conn.cursor(row_factory=dict_row) as cur:
        row = cur.execute(f"SELECT {_COLUMNS} FROM agent_traces WHERE trace_id = %s",
                          [trace_id]).fetchone()
    if row is None:
        return None
    out = dict(row["record"] or {})
    out.setdefault("trace_id", row["trace_id"])
    out["created_at"] = row["created_at"].isoformat()
    return out


def recent_traces(conn: psycopg.Connection, thread_id: str | None = None,
                  limit: int = 20) -> list[dict[str, Any]]:
    """Summaries of the latest traces (of one thread when given), newest first."""
    where = "WHERE thread_id = %(thread)s" if thread_id else ""
    with conn.cursor(row_factory=dict_row) as cur:
        rows = cur.execute(
            f"SELECT trace_id, thread_id, kb, question, route, rounds, refused, latency_ms, "
            f"created_at FROM agent_traces {where} ORDER BY created_at DESC LIMIT %(limit)s",
            {"thread": thread_id, "limit": limit}).fetchall()
    return [dict(r) for r in rows]
