"""Would documents the asker may read personally, but not in this conversation, have
answered the query?

A refusal caused by access rules is told to the asker (DESIGN: a permission failure is told
to the user, never a silent empty answer), but only to an asker who could read those
documents in a DM: probing as every reader would let anyone learn which restricted subjects
exist. This searches the KB with the conversation's and the asker's own principals; if the
best hit is a document the conversation may not use, and it matched the query's words as
well as its meaning, the answer was hidden by access. Only the fact comes back, never a
title or a word of the document.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import structlog

if TYPE_CHECKING:
    import psycopg
    from psycopg_pool import ConnectionPool

    from store.embedder import Embedder

log = structlog.get_logger("ragbot.access")


def answer_hidden(pool: ConnectionPool, kb: str, query: str, principals: Sequence[str], *,
                  asker: Sequence[str], embedder: Embedder) -> bool:
    """True when the best match for ``query`` among the documents ``principals`` or
    ``asker`` (the asker's own principals) may read is one ``principals`` may not read."""
    from store.search import search

    both = sorted(set(principals) | set(asker))
    if set(both) <= set(principals):
        return False  # the asker reads nothing more personally than here
    hits = search(pool, kb, query, embedder=embedder, k=1, principals=both)
    if not hits or hits[0].keyword_rank is None:
        return False
    with pool.connection() as conn:
        hidden = conn.execute(
            """
            SELECT 1 FROM documents d
              JOIN knowledge_bases k ON k.id = d.kb_id AND d.generation = k.active_generation
             WHERE k.name = %s AND d.doc_key = %s AND d.is_latest
               AND NOT (d.acl && %s::text[])
            """, [kb, hits[0].doc_id, list(principals)]).fetchone()
    if hidden:
        log.info("answer_hidden_by_access", kb=kb)
    return hidden is not None


def groups_in_acls(conn: psycopg.Connection[Any]) -> tuple[str, ...]:
    """The user-group ids (``group:<id>``) that the latest documents' access lists name."""
    rows = conn.execute(
        "SELECT DISTINCT substr(a, 7) FROM documents d, unnest(d.acl) a "
        "WHERE d.is_latest AND a LIKE 'group:%%' ORDER BY 1").fetchall()
    return tuple(str(r[0]) for r in rows)
