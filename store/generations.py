"""The SQL of a reindex's generations: register a build, switch to it, clean up after.

Every function takes the connection holding the KB's write lock (see store.reindex).
"""

from __future__ import annotations

from typing import Any

import psycopg
import structlog

from store.embedder import Embedder
from store.embedding import embedder_backend
from store.kb import KnowledgeBase
from store.retention import scrub_document_from_traces

log = structlog.get_logger("ragbot.reindex")


def begin(conn: psycopg.Connection[Any], kb: KnowledgeBase, embedder: Embedder) -> int:
    """Register the generation to build; its number is above every one used before."""
    with conn.transaction():
        row = conn.execute(
            "SELECT greatest(%(active)s, (SELECT max(generation) FROM generations "
            "WHERE kb_id = %(id)s), (SELECT max(generation) FROM documents "
            "WHERE kb_id = %(id)s)) + 1",
            {"id": kb.id, "active": kb.active_generation}).fetchone()
        assert row is not None
        new = int(row[0])
        conn.execute("INSERT INTO generations (kb_id, generation, embed_model, embed_dim, "
                     "embed_backend, state) VALUES (%s, %s, %s, %s, %s, 'building')",
                     [kb.id, new, embedder.name, embedder.dim, embedder_backend(embedder)])
    return new


def switch(conn: psycopg.Connection[Any], kb_id: int, generation: int,
            embedder: Embedder) -> None:
    """The one transaction that makes ``generation`` (and its model) the KB's."""
    with conn.transaction():
        conn.execute("SELECT 1 FROM knowledge_bases WHERE id = %s FOR UPDATE", [kb_id])
        conn.execute("UPDATE knowledge_bases SET active_generation = %s, embed_model = %s, "
                     "embed_dim = %s, embed_backend = %s WHERE id = %s",
                     [generation, embedder.name, embedder.dim, embedder_backend(embedder),
                      kb_id])
        conn.execute("UPDATE generations SET state = 'superseded', finished_at = now() "
                     "WHERE kb_id = %s AND generation <> %s AND state = 'active'",
                     [kb_id, generation])
        conn.execute("UPDATE generations SET state = 'active', finished_at = now() "
                     "WHERE kb_id = %s AND generation = %s", [kb_id, generation])


def abandon(conn: psycopg.Connection[Any], kb_id: int, generation: int) -> None:
    """Mark a build failed and delete its rows; never masks the error that caused it."""
    try:
        with conn.transaction():
            conn.execute("UPDATE generations SET state = 'failed', finished_at = now() "
                         "WHERE kb_id = %s AND generation = %s AND state = 'building'",
                         [kb_id, generation])
            delete_rows(conn, "generation = %s", [kb_id, generation])
    except psycopg.Error:
        # The next reindex deletes what is left (see _drop_inactive).
        log.warning("reindex_cleanup_failed", kb_id=kb_id, generation=generation,
                    exc_info=True)


def drop_inactive(conn: psycopg.Connection[Any], kb_id: int) -> int:
    """Delete rows of every generation but the active one; returns documents deleted.

    Called with the KB's write lock held, so no build is running: a 'building' generation
    here was left by a process that died.
    """
    with conn.transaction():
        conn.execute("UPDATE generations SET state = 'failed', finished_at = now() "
                     "WHERE kb_id = %s AND state = 'building'", [kb_id])
        # documents the new generation no longer has were deleted at their source
        gone = [r[0] for r in conn.execute(
            "SELECT DISTINCT doc_key FROM documents d WHERE kb_id = %(kb)s AND is_latest "
            "AND generation <> (SELECT active_generation FROM knowledge_bases WHERE id = %(kb)s)"
            " AND NOT EXISTS (SELECT 1 FROM documents a WHERE a.kb_id = %(kb)s AND a.is_latest"
            " AND a.doc_key = d.doc_key AND a.generation = (SELECT active_generation FROM "
            "knowledge_bases WHERE id = %(kb)s))", {"kb": kb_id}).fetchall()]
        scrub_document_from_traces(conn, kb_id, gone)
        return delete_rows(
            conn, "generation <> (SELECT active_generation FROM knowledge_bases WHERE id = %s)",
            [kb_id, kb_id])


def drop_superseded(conn: psycopg.Connection[Any], kb_id: int) -> int:
    """After the switch: drop the old generation's rows (the switch stands if this fails)."""
    try:
        return drop_inactive(conn, kb_id)
    except psycopg.Error:
        log.warning("reindex_drop_failed", kb_id=kb_id, exc_info=True)  # next reindex retries
        return 0


def delete_rows(conn: psycopg.Connection[Any], where: str, params: list[Any]) -> int:
    # Chunks first through their (kb_id, generation) index, rather than one cascade
    # lookup per deleted document.
    conn.execute(f"DELETE FROM chunks WHERE kb_id = %s AND {where}", params)
    cur = conn.execute(f"DELETE FROM documents WHERE kb_id = %s AND {where}", params)
    return cur.rowcount


def counts(conn: psycopg.Connection[Any], kb_id: int, generation: int) -> tuple[int, int]:
    row = conn.execute(
        "SELECT (SELECT count(*) FROM documents WHERE kb_id = %(id)s AND generation = %(g)s "
        "AND is_latest), (SELECT count(*) FROM chunks WHERE kb_id = %(id)s AND "
        "generation = %(g)s)", {"id": kb_id, "g": generation}).fetchone()
    assert row is not None
    return int(row[0]), int(row[1])
