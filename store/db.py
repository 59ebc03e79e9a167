"""Connection pools and index management."""

from __future__ import annotations

import contextlib

import psycopg
from pgvector.psycopg import register_vector
from psycopg_pool import ConnectionPool

from store import migrations


def _configure(conn: psycopg.Connection) -> None:
    register_vector(conn)


def open_pool(url: str, *, min_size: int = 1, max_size: int = 8,
              migrate: bool = True) -> ConnectionPool:
    """An autocommit pool with pgvector types registered; the schema is set up on first use
    (``migrate=False``: left as it is, for a test of an upgrade).

    Callers open transactions explicitly (``with conn.transaction()``).
    """
    if migrate:
        with psycopg.connect(url, autocommit=True) as conn:
            migrations.setup(conn)
    pool = ConnectionPool(
        url,
        min_size=min_size,
        max_size=max_size,
        # No server-side prepared statements: after five runs Postgres may switch a
        # prepared search to a generic plan that skips the partial HNSW index.
        kwargs={"autocommit": True, "prepare_threshold": None},
        configure=_configure,
        open=True,
    )
    pool.wait()
    return pool


def ensure_vector_index(conn: psycopg.Connection, dim: int) -> None:
    """Create the partial HNSW (cosine) index for ``dim``-dimensional embeddings if absent."""
    if not isinstance(dim, int) or dim <= 0 or dim > 16000:
        raise ValueError(f"invalid embedding dimension {dim!r}")
    name = f"chunks_embedding_hnsw_{dim}"
    exists = conn.execute("SELECT to_regclass(%s) IS NOT NULL", [name]).fetchone()
    if exists and exists[0]:
        return
    # Two processes may race here; the loser's IF NOT EXISTS is a no-op or a unique error.
    with contextlib.suppress(psycopg.errors.UniqueViolation, psycopg.errors.DuplicateTable):
        conn.execute(
            f"CREATE INDEX IF NOT EXISTS {name} ON chunks "
            f"USING hnsw ((embedding::vector({dim})) vector_cosine_ops) WHERE dim = {dim}"
        )


def reachable(pool: ConnectionPool, *, timeout_s: float = 2.0) -> bool:
    """Whether the database answers within ``timeout_s`` (the health check)."""
    try:
        with pool.connection(timeout=timeout_s) as conn:
            conn.execute("SELECT 1")
    except (psycopg.Error, TimeoutError):  # PoolTimeout is a psycopg.Error
        return False
    return True
