"""Throwaway databases cloned from a migrated template (fast: a file copy in PostgreSQL)."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
from psycopg import sql
from psycopg.conninfo import make_conninfo
from psycopg_pool import ConnectionPool

SAMPLES = Path(__file__).resolve().parents[1] / "samples" / "kb"


@contextlib.contextmanager
def cloned_database(admin_url: str, template: str, prefix: str = "t") -> Iterator[str]:
    """A new database copied from ``template``; dropped (even with open sessions) after."""
    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(
            sql.Identifier(name), sql.Identifier(template)))
    try:
        yield make_conninfo(admin_url, dbname=name)
    finally:
        with psycopg.connect(admin_url, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(
                sql.Identifier(name)))


@contextlib.contextmanager
def samples_kb(admin_url: str, template: str, embedder: Any, kb: str,
               prefix: str = "s") -> Iterator[ConnectionPool]:
    """A pool on a cloned database holding all of samples/kb as KB ``kb`` (embedding it takes
    a while: use it from a module-scoped fixture)."""
    from store.db import open_pool
    from store.ingest import ingest_paths

    with cloned_database(admin_url, template, prefix=prefix) as url:
        pool = open_pool(url, max_size=2)
        try:
            report = ingest_paths(pool, kb, [SAMPLES], embedder=embedder)
            assert report.failed == 0, report.errors
            yield pool
        finally:
            pool.close()


@contextlib.contextmanager
def samples_agent(admin_url: str, template: str, embedder: Any, kb: str,
                  prefix: str = "s") -> Iterator[Any]:
    """The real agent over a cloned database holding all of samples/kb as KB ``kb`` (see
    ``samples_kb``: use it from a module-scoped fixture)."""
    from agent.api import build_agent

    with samples_kb(admin_url, template, embedder, kb, prefix=prefix) as pool:
        agent = build_agent(pool, embedder)
        try:
            yield agent
        finally:
            agent.close()


@contextlib.contextmanager
def files_agent(pool: ConnectionPool, embedder: Any, folder: Path, kb: str,
                files: dict[str, str]) -> Iterator[Any]:
    """The real agent over KB ``kb`` holding ``files`` (name -> text), written to ``folder``
    and ingested; every file must ingest."""
    from agent.api import build_agent
    from store.ingest import ingest_paths

    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    report = ingest_paths(pool, kb, [folder], embedder=embedder)
    assert report.failed == 0, report.errors
    agent = build_agent(pool, embedder)
    try:
        yield agent
    finally:
        agent.close()


def keyword_lines(conn: Any, kb: Any, key: str, texts: list[str], embedder: Any, *,
                  seed: int = 0) -> None:
    """Document ``key`` of ``kb`` (public) with one chunk per text, its keyword index as
    ingest writes it and random vectors: only the keyword side and translations are under
    test."""
    import numpy as np

    from store.tokenize import keyword_text

    rng = np.random.default_rng(seed)
    row = conn.execute(
        "INSERT INTO documents (kb_id, generation, doc_key, source, title, content_hash, acl) "
        "VALUES (%s, %s, %s, %s, %s, md5(%s), '{public}') RETURNING id",
        [kb.id, kb.active_generation, key, f"/docs/{key}.md", key, key]).fetchone()
    assert row is not None
    for position, text in enumerate(texts):
        conn.execute(
            "INSERT INTO chunks (document_id, kb_id, generation, position, text, token_count, "
            "tsv, embedding, dim, doc_type, source, acl, updated_at) VALUES (%s, %s, %s, %s, "
            "%s, 5, to_tsvector('simple', %s), %s, %s, 'document', %s, '{public}', now())",
            [row[0], kb.id, kb.active_generation, position, text, keyword_text(text),
             rng.standard_normal(embedder.dim).astype(np.float32), embedder.dim,
             f"/docs/{key}.md"])
