"""The per-generation chunk count that keyword idf reads is kept by the database itself."""

from __future__ import annotations

from typing import Any

import pytest
from psycopg_pool import ConnectionPool

from store.embedder import Embedder
from store.ingest import ingest_documents
from store.types import SourceDocument

pytestmark = pytest.mark.db


def _counts(pool: ConnectionPool[Any], kb: str) -> tuple[int, int]:
    """(kept chunk_count, actual chunk rows) of the KB's active generation."""
    with pool.connection() as conn:
        row = conn.execute(
            "SELECT g.chunk_count, (SELECT count(*) FROM chunks c WHERE c.kb_id = k.id "
            "AND c.generation = k.active_generation) FROM knowledge_bases k JOIN generations g "
            "ON g.kb_id = k.id AND g.generation = k.active_generation WHERE k.name = %s",
            [kb]).fetchone()
    assert row is not None
    return int(row[0]), int(row[1])


def _doc(key: str, text: str) -> SourceDocument:
    return SourceDocument(doc_key=key, source=f"/docs/{key}.md", title=key, text=text)


def test_chunk_count_follows_ingest_update_and_delete(pool: ConnectionPool[Any],
                                                      embedder: Embedder) -> None:
    long_text = "\n\n".join(f"Paragraph {i} about the travel policy and its many rules. " * 30
                            for i in range(6))
    ingest_documents(pool, "kb", [_doc("a", long_text), _doc("b", "A short note on leave.")],
                     embedder=embedder)
    kept, actual = _counts(pool, "kb")
    assert actual > 2  # the long document was split, so the count is not the document count
    assert kept == actual

    # a changed document replaces its chunks (old version archived, its chunks deleted)
    ingest_documents(pool, "kb", [_doc("a", "Now a single short paragraph.")], embedder=embedder)
    assert _counts(pool, "kb") == (2, 2)

    with pool.connection() as conn:  # a cascade from documents counts too
        conn.execute("DELETE FROM documents WHERE doc_key = 'b'")
    assert _counts(pool, "kb") == (1, 1)
