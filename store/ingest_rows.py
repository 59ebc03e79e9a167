"""The SQL side of ingestion: look up versions, write a version with its chunks, archive.

Every function works inside the caller's transaction on one connection, scoped to one
(kb_id, generation), so a reindex can build a new generation beside the active one.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import psycopg

from store.embedder import Vectors
from store.readers import Scope
from store.retention import scrub_document_from_traces
from store.suspicious import suspicious_spans
from store.tokenize import keyword_text
from store.types import ChunkDraft, SourceDocument

_CHUNK_COLUMNS = ("document_id, kb_id, generation, position, heading_path, text, token_count, "
                  "tsv, embedding, dim, doc_type, source, acl, updated_at, suspicious")
_INSERT_CHUNK = (f"INSERT INTO chunks ({_CHUNK_COLUMNS}) VALUES "
                 "(%s, %s, %s, %s, %s, %s, %s, to_tsvector('simple', %s), %s, %s, %s, %s, %s, %s, "
                 "%s)")


@dataclass(frozen=True)
class Stored:
    """The newest stored version of a document key."""

    id: int
    content_hash: str
    version: int
    is_latest: bool  # False when it was archived (pruned) and the key comes back


def newest_versions(conn: psycopg.Connection[Any], kb_id: int, generation: int,
                    keys: Sequence[str]) -> dict[str, Stored]:
    rows = conn.execute(
        "SELECT DISTINCT ON (doc_key) doc_key, id, content_hash, version, is_latest "
        "FROM documents WHERE kb_id = %s AND generation = %s AND doc_key = ANY(%s) "
        "ORDER BY doc_key, version DESC",
        [kb_id, generation, list(keys)],
    ).fetchall()
    return {r[0]: Stored(*r[1:]) for r in rows}


def updated_at(doc: SourceDocument) -> datetime:
    """When the document last changed: its metadata's ``updated_at``, its file's mtime, now."""
    for key in ("updated_at", "mtime"):
        value = doc.metadata.get(key)
        if isinstance(value, str):
            with contextlib.suppress(ValueError):
                parsed = datetime.fromisoformat(value)
                return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    return datetime.now(UTC)


def archive(conn: psycopg.Connection[Any], ids: list[int]) -> None:
    """Mark versions archived and drop their chunks (only latest versions are searchable)."""
    conn.execute("UPDATE documents SET is_latest = false, archived_at = now() "
                 "WHERE id = ANY(%s)", [ids])
    conn.execute("DELETE FROM chunks WHERE document_id = ANY(%s)", [ids])


def write_version(conn: psycopg.Connection[Any], kb_id: int, generation: int, *,
                  doc: SourceDocument, content_hash: str, version: int,
                  previous_id: int | None, drafts: Sequence[ChunkDraft],
                  inputs: Sequence[str], vectors: Vectors, dim: int) -> None:
    """Archive ``previous_id`` (if any) and insert the new version with its chunks.

    ``inputs`` are the embedding inputs (title, heading path, text); the keyword index is
    built from the same text so both sides of hybrid search see the same words.
    """
    acl = list(doc.acl)
    if previous_id is not None:
        _scrub_if_restricted(conn, kb_id, previous_id, doc.doc_key, acl)
        archive(conn, [previous_id])
    changed = updated_at(doc)
    row = conn.execute(
        "INSERT INTO documents (kb_id, generation, doc_key, source, title, doc_type, "
        "content_hash, version, acl, metadata, updated_at) "
        "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s::jsonb, %s) RETURNING id",
        [kb_id, generation, doc.doc_key, doc.source, doc.title, doc.doc_type, content_hash,
         version, acl, json.dumps(doc.metadata, ensure_ascii=False, default=str), changed],
    ).fetchone()
    assert row is not None
    with conn.cursor() as cur:
        cur.executemany(_INSERT_CHUNK, [
            (row[0], kb_id, generation, d.position, list(d.heading_path), d.text,
             d.token_count, keyword_text(text), vec, dim, doc.doc_type, doc.source, acl,
             changed, suspicious_spans(d.text))
            for d, text, vec in zip(drafts, inputs, vectors, strict=True)
        ])


def _scrub_if_restricted(conn: psycopg.Connection[Any], kb_id: int, previous_id: int,
                         doc_key: str, acl: list[str]) -> None:
    """Someone who could read the previous version cannot read the new one: answers that
    quoted it leave stored traces."""
    row = conn.execute("SELECT acl FROM documents WHERE id = %s", [previous_id]).fetchone()
    if row is not None and not set(row[0]) <= set(acl):
        scrub_document_from_traces(conn, kb_id, [doc_key])


def _scope_where(scope: Scope) -> tuple[str, list[Any]]:
    if scope.kind == "folder":
        prefix = scope.path.rstrip("/") + "/"
        return "left(doc_key, %s) = %s", [len(prefix), prefix]
    return "metadata->>'corpus' = %s", [scope.path]


def count_vanished(conn: psycopg.Connection[Any], kb_id: int, generation: int,
                   scope: Scope) -> int:
    """How many latest documents of ``scope`` this ingest did not see (what --prune takes)."""
    where, args = _scope_where(scope)
    row = conn.execute(
        f"SELECT count(*) FROM documents WHERE kb_id = %s AND generation = %s AND is_latest "
        f"AND {where} AND NOT (doc_key = ANY(%s))",
        [kb_id, generation, *args, list(scope.seen)]).fetchone()
    return int(row[0]) if row else 0


def prune_scope(conn: psycopg.Connection[Any], kb_id: int, generation: int,
                scope: Scope) -> int:
    """Archive latest documents of ``scope`` that this ingest did not see; return how many."""
    where, args = _scope_where(scope)
    with conn.transaction():
        rows = conn.execute(
            f"SELECT id, doc_key FROM documents WHERE kb_id = %s AND generation = %s "
            f"AND is_latest "
            f"AND {where} AND NOT (doc_key = ANY(%s)) FOR UPDATE",
            [kb_id, generation, *args, list(scope.seen)],
        ).fetchall()
        if rows:
            archive(conn, [r[0] for r in rows])
            # deleted from the source: its text leaves stored traces too
            scrub_document_from_traces(conn, kb_id, [r[1] for r in rows])
    return len(rows)
