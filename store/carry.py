"""Carry documents a reindex could not re-read from the active generation into the new one.

A source that is gone or broken, or one file that no longer reads, must not make its
documents vanish (or stop the whole reindex): their current version, with its access list,
moves into the generation being built. With the same model the vectors are copied; with
another model the stored chunk texts are embedded again (the file itself is not read).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

import numpy as np
import psycopg

from store.chunking import embedding_input
from store.embedder import Embedder
from store.errors import StoreError

_COPY_DOCUMENT = (
    "INSERT INTO documents (kb_id, generation, doc_key, source, title, doc_type, content_hash, "
    "version, acl, metadata, updated_at) SELECT kb_id, %s, doc_key, source, title, doc_type, "
    "content_hash, version, acl, metadata, updated_at FROM documents WHERE id = %s RETURNING id")
_COPY_CHUNKS = (
    "INSERT INTO chunks (document_id, kb_id, generation, position, heading_path, text, "
    "token_count, tsv, embedding, dim, doc_type, source, acl, updated_at) SELECT %s, kb_id, %s, "
    "position, heading_path, text, token_count, tsv, embedding, dim, doc_type, source, acl, "
    "updated_at FROM chunks WHERE document_id = %s")
_REEMBED_CHUNK = (
    "INSERT INTO chunks (document_id, kb_id, generation, position, heading_path, text, "
    "token_count, tsv, embedding, dim, doc_type, source, acl, updated_at) SELECT %s, kb_id, %s, "
    "position, heading_path, text, token_count, tsv, %s, %s, doc_type, source, acl, "
    "updated_at FROM chunks WHERE id = %s")


def in_source(doc_key: str, corpus: str | None, source: str) -> bool:
    """Whether a document came from recorded source ``source`` (a file, folder or corpus)."""
    folder = source.rstrip("/") + "/"
    return any(value is not None and (value == source or value.startswith(folder))
               for value in (doc_key, corpus))


def carry_over(conn: psycopg.Connection[Any], kb_id: int, old: int, new: int, *,
               keys: Collection[str], sources: Sequence[str], embedder: Embedder,
               same_model: bool) -> list[str]:
    """Copy into ``new`` the latest documents of ``old`` that ``new`` lacks and that are in
    ``keys`` or under one of ``sources``; returns their keys."""
    missing = conn.execute(
        "SELECT o.id, o.doc_key, o.metadata->>'corpus', o.title FROM documents o "
        "WHERE o.kb_id = %(kb)s AND o.generation = %(old)s AND o.is_latest AND NOT EXISTS ("
        "SELECT 1 FROM documents n WHERE n.kb_id = o.kb_id AND n.generation = %(new)s "
        "AND n.doc_key = o.doc_key AND n.is_latest) ORDER BY o.id",
        {"kb": kb_id, "old": old, "new": new}).fetchall()
    carried: list[str] = []
    for doc_id, key, corpus, title in missing:
        if key not in keys and not any(in_source(key, corpus, s) for s in sources):
            continue
        with conn.transaction():
            row = conn.execute(_COPY_DOCUMENT, [new, doc_id]).fetchone()
            assert row is not None
            if same_model:
                conn.execute(_COPY_CHUNKS, [row[0], new, doc_id])
            else:
                _reembed(conn, doc_id, row[0], generation=new, title=title, embedder=embedder)
        carried.append(key)
    return carried


def _reembed(conn: psycopg.Connection[Any], old_id: int, new_id: int, *, generation: int,
             title: str, embedder: Embedder) -> None:
    chunks = conn.execute("SELECT id, heading_path, text FROM chunks WHERE document_id = %s "
                          "ORDER BY position", [old_id]).fetchall()
    if not chunks:
        return
    vectors = np.asarray(embedder.embed_documents(
        [embedding_input(title, tuple(c[1]), c[2]) for c in chunks]), dtype=np.float32)
    if vectors.shape != (len(chunks), embedder.dim):
        raise StoreError(f"embedder returned shape {vectors.shape} for {len(chunks)} chunks")
    with conn.cursor() as cur:
        cur.executemany(_REEMBED_CHUNK, [(new_id, generation, vec, embedder.dim, chunk[0])
                                         for chunk, vec in zip(chunks, vectors, strict=True)])
