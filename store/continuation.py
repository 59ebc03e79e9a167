"""The chunk that carries on a list the chunker cut.

A long step list runs past one chunk; search may find the chunk holding its first steps and
not the next one, whose words are about the later steps. An answer quoting the list would
stop halfway. So for a found chunk that ends on a list item, the next chunk of the same
section (same document version and heading path), when the asker may read it, is fetched
too.
"""

from __future__ import annotations

from collections.abc import Sequence

from psycopg_pool import ConnectionPool

from store.types import PUBLIC, Hit

_NEXT = """
SELECT c.id, n.id, doc.doc_key, doc.title, n.source, n.doc_type, n.heading_path, n.text
FROM chunks c
JOIN chunks n ON n.document_id = c.document_id AND n.generation = c.generation
             AND n.position = c.position + 1 AND n.heading_path = c.heading_path
JOIN documents doc ON doc.id = n.document_id
WHERE c.id = ANY(%(ids)s) AND n.acl && %(principals)s::text[]
"""


def list_continuations(pool: ConnectionPool, hits: Sequence[Hit],
                       principals: Sequence[str] = (PUBLIC,)) -> dict[int, Hit]:
    """For each of ``hits`` (those the caller saw end on a list item), the next chunk of its
    section that ``principals`` may read, by the hit's chunk id (score and kb taken from
    the hit)."""
    if not hits:
        return {}
    by_id = {h.chunk_id: h for h in hits}
    with pool.connection() as conn:
        rows = conn.execute(_NEXT, {"ids": list(by_id),
                                    "principals": list(principals) or [PUBLIC]}).fetchall()
    return {r[0]: Hit(chunk_id=r[1], doc_id=r[2], title=r[3], source=r[4], doc_type=r[5],
                      heading_path=tuple(r[6] or ()), text=r[7], score=by_id[r[0]].score,
                      kb=by_id[r[0]].kb, date=by_id[r[0]].date)
            for r in rows}
