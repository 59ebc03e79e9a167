"""The answer cache inside a turn: look up before the graph, remember after it.

Only a question that opens a thread is looked up: it cannot lean on earlier turns, so its
answer depends on the KB, the asker's principals and its words alone. A hit still becomes
the thread's first turn (its checkpointed memory), so follow-ups work as after a computed
answer. Stored are the answers of standalone questions only: not follow-ups (the
understanding borrowed nothing), not answers to a clarification, not refusals caused by
documents the asker may not read. See ``store.answer_cache`` for keys and invalidation.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import structlog

from store import answer_cache
from store.answer_cache import Lookup

if TYPE_CHECKING:
    from psycopg_pool import ConnectionPool

    from agent.types import AnswerResult, Question

log = structlog.get_logger("agent")


def check(graph: Any, pool: ConnectionPool, q: Question, config: dict[str, Any]) -> Lookup:
    """Look ``q`` up if it opens its thread; otherwise only read the KB's content version
    (needed to remember the answer)."""
    snapshot = graph.get_state(config)
    fresh = not (snapshot.values or {}).get("history") and not snapshot.next
    with pool.connection() as conn:
        if fresh:
            return answer_cache.lookup(conn, q.kb, _principals(q), q.text)
        return answer_cache.content_version(conn, q.kb)


def replay(graph: Any, q: Question, found: Lookup, config: dict[str, Any]) -> dict[str, Any]:
    """Make the cached answer the thread's turn; returns the graph's ``result`` dict."""
    assert found.entry is not None
    result: dict[str, Any] = dict(found.entry["result"])
    turn = {**found.entry["turn"], "question": q.text}
    graph.update_state(config, {"question": q.text, "history": [turn], "result": result,
                                "clarify_reply": None}, as_node="finalize")
    return result


def remember(pool: ConnectionPool, q: Question, found: Lookup, values: dict[str, Any],
             result: AnswerResult) -> None:
    """Keep the turn's answer if it may be reused (see the module docstring)."""
    u = values.get("understanding") or {}
    if (found.kb_id is None or found.version is None or result.clarification is not None
            or result.restricted_hidden or u.get("is_followup") or u.get("implicit_context")
            or not values.get("result") or not values.get("history")):
        return
    entry = {"result": values["result"], "turn": values["history"][-1]}
    try:
        with pool.connection() as conn:
            answer_cache.store(conn, kb_id=found.kb_id, version=found.version,
                               principals=_principals(q), question=q.text,
                               trace_id=result.trace_id, entry=entry)
    except Exception:  # a cache is worth less than the answer it would keep
        log.exception("answer_cache_store_failed", trace_id=result.trace_id)


def _principals(q: Question) -> list[str]:
    """The cache key's principals: what the answer may draw on, and (marked) what the
    asker may read, since that decides whether a refusal points at restricted documents."""
    return [*q.principals, *(f"asker:{p}" for p in q.asker_principals)]
