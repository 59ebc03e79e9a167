"""Would documents the asker may not read have answered? Then the asker is told so,
instead of getting a bare "I can't answer" (DESIGN: a permission failure is told to the
user, never a silent empty answer).

Used when the agent refused without saying ``restricted_hidden`` itself. It searches the
KB as if every reader were asking; if the best hit is a document this conversation may
not read, and it matched the question's words as well as its meaning, the refusal was a
permission problem. Only the fact is told, never a title or a word of the document.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import structlog

if TYPE_CHECKING:
    from psycopg_pool import ConnectionPool

    from store.embedding import Embedder

log = structlog.get_logger("ragbot.slack.restricted")


class RestrictedProbe:
    def __init__(self, pool: ConnectionPool, embedder: Embedder) -> None:
        self._pool = pool
        self._embedder = embedder

    def __call__(self, kb: str, query: str, principals: Sequence[str]) -> bool:
        from store.search import search

        with self._pool.connection() as conn:
            rows = conn.execute(
                """
                SELECT DISTINCT unnest(d.acl) FROM documents d
                  JOIN knowledge_bases k ON k.id = d.kb_id AND d.generation = k.active_generation
                 WHERE k.name = %s AND d.is_latest
                """, [kb]).fetchall()
        everyone = sorted({r[0] for r in rows} | set(principals))
        if set(everyone) <= set(principals):
            return False  # nothing in the KB is hidden from this conversation
        hits = search(self._pool, kb, query, embedder=self._embedder, k=1,
                      principals=everyone)
        if not hits or hits[0].keyword_rank is None:
            return False
        with self._pool.connection() as conn:
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
