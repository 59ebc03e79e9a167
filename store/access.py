"""Would documents the asker may not read have answered the query?

A refusal caused by access rules must be told as such (DESIGN: a permission failure is
told to the user, never a silent empty answer). This searches the KB as if every reader
were asking; if the best hit is a document the asker's principals may not read, and it
matched the query's words as well as its meaning, the answer was hidden by access. Only the
fact comes back, never a title or a word of the document.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import structlog

if TYPE_CHECKING:
    from psycopg_pool import ConnectionPool

    from store.embedding import Embedder

log = structlog.get_logger("ragbot.access")


def answer_hidden(pool: ConnectionPool, kb: str, query: str, principals: Sequence[str], *,
                  embedder: Embedder) -> bool:
    """True when the best match for ``query`` among all documents is one ``principals``
    may not read."""
    from store.search import search

    with pool.connection() as conn:
        rows = conn.execute(
            """
            SELECT DISTINCT unnest(d.acl) FROM documents d
              JOIN knowledge_bases k ON k.id = d.kb_id AND d.generation = k.active_generation
             WHERE k.name = %s AND d.is_latest
            """, [kb]).fetchall()
    everyone = sorted({r[0] for r in rows} | set(principals))
    if set(everyone) <= set(principals):
        return False  # nothing in the KB is hidden from these principals
    hits = search(pool, kb, query, embedder=embedder, k=1, principals=everyone)
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
