"""Stored traces never hold a secret a user pasted into a question or a node logged."""

from __future__ import annotations

import pytest
from psycopg_pool import ConnectionPool

from store.traces import get_trace, save_trace

pytestmark = pytest.mark.db

TOKEN = "xoxp-8812-3301-T2hTZWNyZXRVc2Vy"  # noqa: S105 (a test secret)


def test_trace_is_stored_with_secrets_masked(pool: ConnectionPool) -> None:
    record = {
        "trace_id": "t-redact-1", "thread_id": "C1:1.0", "kb": "default", "user": "U1",
        "question": f"why does {TOKEN} fail with invalid_auth?",
        "rewritten_query": "invalid_auth token", "route": "retrieval", "rounds": 1,
        "refused": False, "answer": "Rotate it.", "latency_ms": 12,
        "steps": [{"node": "understand",
                   "input": {"q": "db at postgresql://app:Lilac-Fjord-62@db/app down"},
                   "output": {"api_key": "gw-hidden-key"}}],
    }
    with pool.connection() as conn:
        save_trace(conn, record)
        trace = get_trace(conn, "t-redact-1")
        column = conn.execute("SELECT question, record::text FROM agent_traces "
                              "WHERE trace_id = 't-redact-1'").fetchone()
    assert trace is not None
    assert column is not None
    stored = repr(trace) + repr(column)
    for secret in (TOKEN, "Lilac-Fjord-62", "gw-hidden-key"):
        assert secret not in stored
    assert trace["question"].startswith("why does xoxp-")
    assert trace["answer"] == "Rotate it."
