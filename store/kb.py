"""Knowledge bases: creation, the embedding-model check, recorded sources, status, locks."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import psycopg
from psycopg.rows import dict_row

from store import answer_cache
from store.db import ensure_vector_index
from store.embedder import Embedder
from store.embedding import embedder_backend
from store.errors import (
    BackendMismatchError,
    KnowledgeBaseNotFoundError,
    ModelMismatchError,
    ReindexInProgressError,
)

_KB_LOCK_NAMESPACE = 0x6B62  # "kb": advisory lock class for per-KB write locks


@dataclass(frozen=True)
class KnowledgeBase:
    id: int
    name: str
    embed_model: str
    embed_dim: int
    embed_backend: str
    sources: list[dict[str, Any]]
    active_generation: int
    created_at: datetime
    last_ingest_at: datetime | None


_COLUMNS = ("id, name, embed_model, embed_dim, embed_backend, sources, active_generation, "
            "created_at, last_ingest_at")


def _row_to_kb(row: dict[str, Any]) -> KnowledgeBase:
    return KnowledgeBase(**row)


def find_kb(conn: psycopg.Connection, name: str) -> KnowledgeBase | None:
    with conn.cursor(row_factory=dict_row) as cur:
        row = cur.execute(f"SELECT {_COLUMNS} FROM knowledge_bases WHERE name = %s",
                          [name]).fetchone()
    return _row_to_kb(row) if row else None


def get_kb(conn: psycopg.Connection, name: str) -> KnowledgeBase:
    kb = find_kb(conn, name)
    if kb is None:
        raise KnowledgeBaseNotFoundError(name)
    return kb


def check_model(kb: KnowledgeBase, embedder: Embedder) -> None:
    """Raise ModelMismatchError unless ``embedder`` is the model the KB was embedded with,
    BackendMismatchError unless it runs on the same backend."""
    if kb.embed_model != embedder.name or kb.embed_dim != embedder.dim:
        raise ModelMismatchError(kb.name, kb.embed_model, kb.embed_dim, embedder.name,
                                 embedder.dim)
    if kb.embed_backend != embedder_backend(embedder):
        raise BackendMismatchError(kb.name, kb.embed_backend, embedder_backend(embedder))


def get_or_create_kb(conn: psycopg.Connection, name: str, embedder: Embedder) -> KnowledgeBase:
    """The KB called ``name``, created for ``embedder`` if absent; checks the model."""
    from store.kbset import check_kb_name

    if find_kb(conn, name) is None:  # names from before sets existed keep working
        check_kb_name(name)
    ensure_vector_index(conn, embedder.dim)
    with conn.transaction():
        conn.execute(
            "INSERT INTO knowledge_bases (name, embed_model, embed_dim, embed_backend) "
            "VALUES (%s, %s, %s, %s) ON CONFLICT (name) DO NOTHING",
            [name, embedder.name, embedder.dim, embedder_backend(embedder)],
        )
        kb = get_kb(conn, name)
        conn.execute(
            "INSERT INTO generations (kb_id, generation, embed_model, embed_dim, embed_backend, "
            "state) VALUES (%s, %s, %s, %s, %s, 'active') ON CONFLICT DO NOTHING",
            [kb.id, kb.active_generation, kb.embed_model, kb.embed_dim, kb.embed_backend],
        )
    check_model(kb, embedder)
    return kb


def list_kbs(conn: psycopg.Connection) -> list[KnowledgeBase]:
    with conn.cursor(row_factory=dict_row) as cur:
        rows = cur.execute(f"SELECT {_COLUMNS} FROM knowledge_bases ORDER BY name").fetchall()
    return [_row_to_kb(r) for r in rows]


def record_source(conn: psycopg.Connection, kb_id: int, source: dict[str, Any]) -> None:
    """Remember an ingested path (with its options) so ``reindex`` can re-read it."""
    with conn.transaction():
        row = conn.execute("SELECT sources FROM knowledge_bases WHERE id = %s FOR UPDATE",
                           [kb_id]).fetchone()
        sources: list[dict[str, Any]] = list(row[0]) if row else []
        sources = [s for s in sources if s.get("path") != source.get("path")] + [source]
        conn.execute("UPDATE knowledge_bases SET sources = %s::jsonb WHERE id = %s",
                     [json.dumps(sources), kb_id])


def kb_status(conn: psycopg.Connection, name: str) -> dict[str, Any]:
    kb = get_kb(conn, name)
    row = conn.execute(
        """
        SELECT
          (SELECT count(*) FROM documents WHERE kb_id = %(id)s AND generation = %(g)s
             AND is_latest),
          (SELECT count(*) FROM documents WHERE kb_id = %(id)s AND generation = %(g)s
             AND NOT is_latest),
          (SELECT count(*) FROM chunks WHERE kb_id = %(id)s AND generation = %(g)s)
        """,
        {"id": kb.id, "g": kb.active_generation},
    ).fetchone()
    assert row is not None
    flagged = conn.execute(
        "SELECT d.source, s FROM chunks c JOIN documents d ON d.id = c.document_id, "
        "unnest(c.suspicious) AS s WHERE c.kb_id = %(id)s AND c.generation = %(g)s "
        "ORDER BY d.source, c.position",
        {"id": kb.id, "g": kb.active_generation},
    ).fetchall()
    about = conn.execute("SELECT description, summary FROM knowledge_bases WHERE id = %s",
                         [kb.id]).fetchone()
    return {
        "name": kb.name,
        "description": about[0] if about else "",
        "summary": about[1] if about else "",
        "suspicious": [{"source": r[0], "text": r[1]} for r in flagged],
        "documents": row[0],
        "archived_versions": row[1],
        "chunks": row[2],
        "embed_model": kb.embed_model,
        "embed_dim": kb.embed_dim,
        "embed_backend": kb.embed_backend,
        "generation": kb.active_generation,
        "sources": kb.sources,
        "created_at": kb.created_at.isoformat(),
        "last_ingest_at": kb.last_ingest_at.isoformat() if kb.last_ingest_at else None,
        "answer_cache": answer_cache.stats(conn, kb.id),
    }


@contextlib.contextmanager
def kb_write_lock(conn: psycopg.Connection, kb_id: int, *, wait: bool = True) -> Iterator[None]:
    """Serialize writers (ingest, reindex) of one KB across processes.

    A session-level advisory lock held on ``conn`` for the duration of the block.
    """
    if wait:
        conn.execute("SELECT pg_advisory_lock(%s, %s)", [_KB_LOCK_NAMESPACE, kb_id])
    else:
        row = conn.execute("SELECT pg_try_advisory_lock(%s, %s)",
                           [_KB_LOCK_NAMESPACE, kb_id]).fetchone()
        if not row or not row[0]:
            kb = conn.execute("SELECT name FROM knowledge_bases WHERE id = %s",
                              [kb_id]).fetchone()
            raise ReindexInProgressError(kb[0] if kb else str(kb_id))
    try:
        yield
    finally:
        conn.execute("SELECT pg_advisory_unlock(%s, %s)", [_KB_LOCK_NAMESPACE, kb_id])
