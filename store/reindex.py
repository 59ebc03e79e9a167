"""Reindex: re-read a KB's recorded sources and re-embed them into a new generation.

The new generation is built beside the active one (same tables, another ``generation``
number), so searches keep answering from the old one while it is built: they read
``knowledge_bases.active_generation`` at query time. One transaction then switches the
active generation and the KB's model; the superseded generation's rows are dropped after.
A failed or interrupted build marks its generation 'failed' and deletes its rows, leaving
the old one active; rows a killed process left behind are deleted by the next reindex.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

import psycopg
import structlog
from psycopg_pool import ConnectionPool

from store import readers
from store.db import ensure_vector_index
from store.embedding import Embedder
from store.errors import StoreError
from store.ingest import IngestReport, ingest_paths
from store.kb import KnowledgeBase, get_kb, kb_write_lock
from store.retention import scrub_document_from_traces

log = structlog.get_logger("ragbot.reindex")

DEFAULT_MAX_FILE_BYTES = 20 * 1024 * 1024
_LOG_EVERY_S = 5.0
_ERRORS_SHOWN = 5


class ReindexError(StoreError):
    """The new generation could not be built; the old one stays active."""


@dataclass(frozen=True)
class ReindexProgress:
    """One progress event: ``done`` of ``total`` expected documents read so far."""

    kb: str
    generation: int
    stage: Literal["building", "switching", "done"]
    done: int
    total: int
    source: str | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class ReindexReport:
    """What a reindex did. ``failed``/``errors``: items that could not be read or embedded
    (none of them was in the old generation, or the reindex would have failed)."""

    kb: str
    old_generation: int
    new_generation: int
    old_model: str
    model: str
    dim: int
    documents: int = 0
    chunks: int = 0
    failed: int = 0
    dropped_documents: int = 0  # rows of superseded (and stale) generations deleted
    seconds: float = 0.0
    errors: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def summary(self) -> str:
        model = (self.model if self.model == self.old_model
                 else f"{self.old_model} → {self.model}")
        return (f"{self.documents} documents, {self.chunks} chunks, {self.failed} failed; "
                f"generation {self.old_generation} → {self.new_generation}; model {model} "
                f"({self.dim} dimensions); {self.seconds:.1f} s")


ProgressFn = Callable[[ReindexProgress], None]


def reindex(pool: ConnectionPool[Any], kb_name: str, *, embedder: Embedder,
            progress: bool = False, on_progress: ProgressFn | None = None,
            max_file_bytes: int = DEFAULT_MAX_FILE_BYTES) -> ReindexReport:
    """Rebuild KB ``kb_name`` from its recorded sources with ``embedder``; switch atomically.

    ``embedder`` may be another model than the KB's: the switch records it. ``on_progress``
    gets :class:`ReindexProgress` events (a background job forwards them to the admin);
    ``progress`` also logs them every few seconds. Raises ReindexInProgressError when
    another process is writing the KB, and ReindexError (old generation still active) when
    documents of the old generation could not be rebuilt.
    """
    if pool.max_size < 2:
        # one connection holds the KB lock while the build writes through another
        raise ValueError("reindex needs a connection pool of at least 2 connections")
    started = time.perf_counter()
    with pool.connection() as conn:
        kb = get_kb(conn, kb_name)
        with kb_write_lock(conn, kb.id, wait=False):
            kb = get_kb(conn, kb_name)  # as of now that we hold the lock
            stale = _drop_inactive(conn, kb.id)
            if not kb.sources:
                raise ReindexError(f"knowledge base {kb_name!r} has no recorded sources to "
                                   f"re-read; ingest them with `ragbot ingest PATH --kb "
                                   f"{kb_name}` first")
            ensure_vector_index(conn, embedder.dim)
            new = _begin(conn, kb, embedder)
            bound = log.bind(kb=kb_name, old_generation=kb.active_generation, generation=new,
                             model=embedder.name)
            bound.info("reindex_started", sources=len(kb.sources))
            report = ReindexReport(kb_name, kb.active_generation, new, kb.embed_model,
                                   embedder.name, embedder.dim)
            emit = _Emitter(kb_name, new, on_progress, bound if progress else None)
            try:
                _build(pool, kb, new, embedder=embedder, report=report, emit=emit,
                       max_file_bytes=max_file_bytes)
                _check_complete(conn, kb, new, report)
                emit("switching", emit.done, emit.total)
                _switch(conn, kb.id, new, embedder)
            except BaseException as exc:
                bound.warning("reindex_failed", error=type(exc).__name__)
                _abandon(conn, kb.id, new)
                raise
            report.dropped_documents = stale + _drop_superseded(conn, kb.id)
        report.documents, report.chunks = _counts(conn, kb.id, new)
    report.seconds = time.perf_counter() - started
    emit("done", emit.done, emit.total)
    bound.info("reindex_done", documents=report.documents, chunks=report.chunks,
               failed=report.failed, dropped=report.dropped_documents,
               seconds=round(report.seconds, 2))
    return report


class _Emitter:
    """Turns per-source ingest progress into KB-wide ReindexProgress events."""

    def __init__(self, kb: str, generation: int, callback: ProgressFn | None,
                 logger: Any | None) -> None:
        self.kb, self.generation, self.callback, self.logger = kb, generation, callback, logger
        self.done = self.total = 0
        self._logged = 0.0

    def __call__(self, stage: Literal["building", "switching", "done"], done: int, total: int,
                 source: str | None = None) -> None:
        self.done, self.total = done, max(total, done)
        event = ReindexProgress(self.kb, self.generation, stage, self.done, self.total, source)
        if self.callback is not None:
            self.callback(event)
        now = time.monotonic()
        if self.logger is not None and (stage != "building" or now - self._logged >= _LOG_EVERY_S):
            self._logged = now
            self.logger.info("reindex_progress", stage=stage, done=self.done, total=self.total)


def _begin(conn: psycopg.Connection[Any], kb: KnowledgeBase, embedder: Embedder) -> int:
    """Register the generation to build; its number is above every one used before."""
    with conn.transaction():
        row = conn.execute(
            "SELECT greatest(%(active)s, (SELECT max(generation) FROM generations "
            "WHERE kb_id = %(id)s), (SELECT max(generation) FROM documents "
            "WHERE kb_id = %(id)s)) + 1",
            {"id": kb.id, "active": kb.active_generation}).fetchone()
        assert row is not None
        new = int(row[0])
        conn.execute("INSERT INTO generations (kb_id, generation, embed_model, embed_dim, state) "
                     "VALUES (%s, %s, %s, %s, 'building')",
                     [kb.id, new, embedder.name, embedder.dim])
    return new


def _build(pool: ConnectionPool[Any], kb: KnowledgeBase, generation: int, *,
           embedder: Embedder, report: ReindexReport, emit: _Emitter,
           max_file_bytes: int) -> None:
    paths = [str(s["path"]) for s in kb.sources]
    expected = [_expected(p) for p in paths]
    base = 0  # documents of the sources already built
    for i, (source, path) in enumerate(zip(kb.sources, paths, strict=True)):
        after = sum(expected[i + 1:])

        def tick(done: int, total: int, *, _base: int = base, _after: int = after,
                 _path: str = path, _expected: int = expected[i]) -> None:
            emit("building", _base + done, _base + max(total, _expected) + _after, _path)

        tick(0, 0)
        result: IngestReport = ingest_paths(
            pool, kb.name, [path], embedder=embedder, doc_type=source.get("doc_type"),
            acl=source.get("acl") or None, max_file_bytes=max_file_bytes,
            generation=generation, record_sources=False, on_progress=tick)
        report.failed += result.failed
        report.errors.extend(result.errors)
        base += max(expected[i], result.new + result.updated + result.unchanged + result.failed)


def _expected(path: str) -> int:
    the_plan = readers.plan([path])
    return the_plan.total + len(the_plan.failures)


def _check_complete(conn: psycopg.Connection[Any], kb: KnowledgeBase, generation: int,
                    report: ReindexReport) -> None:
    """Refuse to switch to a generation that lost documents to errors.

    Items that also failed before (never in the old generation) do not block a reindex;
    documents whose file left a recorded folder are dropped, as ``--prune`` would.
    """
    row = conn.execute(
        "SELECT count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM documents n WHERE "
        "n.kb_id = o.kb_id AND n.generation = %(new)s AND n.doc_key = o.doc_key AND "
        "n.is_latest)), count(*) FROM documents o WHERE o.kb_id = %(id)s AND "
        "o.generation = %(old)s AND o.is_latest",
        {"id": kb.id, "old": kb.active_generation, "new": generation}).fetchone()
    assert row is not None
    missing, old_total = int(row[0]), int(row[1])
    lost = missing > 0 and report.failed > 0
    if not lost and not (old_total > 0 and missing == old_total):
        return
    shown = "; ".join(report.errors[:_ERRORS_SHOWN])
    more = len(report.errors) - _ERRORS_SHOWN
    if more > 0:
        shown += f"; and {more} more"
    raise ReindexError(
        f"reindex of {kb.name!r} stopped: {missing} of its {old_total} documents could not be "
        f"rebuilt ({shown or 'no documents were read from ' + ', '.join(_paths(kb))}); "
        f"the knowledge base is unchanged (generation {kb.active_generation} is still active). "
        "Fix or restore those sources and run `ragbot reindex` again")


def _paths(kb: KnowledgeBase) -> list[str]:
    return [Path(str(s.get("path"))).name or str(s.get("path")) for s in kb.sources]


def _switch(conn: psycopg.Connection[Any], kb_id: int, generation: int,
            embedder: Embedder) -> None:
    """The one transaction that makes ``generation`` (and its model) the KB's."""
    with conn.transaction():
        conn.execute("SELECT 1 FROM knowledge_bases WHERE id = %s FOR UPDATE", [kb_id])
        conn.execute("UPDATE knowledge_bases SET active_generation = %s, embed_model = %s, "
                     "embed_dim = %s WHERE id = %s",
                     [generation, embedder.name, embedder.dim, kb_id])
        conn.execute("UPDATE generations SET state = 'superseded', finished_at = now() "
                     "WHERE kb_id = %s AND generation <> %s AND state = 'active'",
                     [kb_id, generation])
        conn.execute("UPDATE generations SET state = 'active', finished_at = now() "
                     "WHERE kb_id = %s AND generation = %s", [kb_id, generation])


def _abandon(conn: psycopg.Connection[Any], kb_id: int, generation: int) -> None:
    """Mark a build failed and delete its rows; never masks the error that caused it."""
    try:
        with conn.transaction():
            conn.execute("UPDATE generations SET state = 'failed', finished_at = now() "
                         "WHERE kb_id = %s AND generation = %s AND state = 'building'",
                         [kb_id, generation])
            _delete_rows(conn, "generation = %s", [kb_id, generation])
    except psycopg.Error:
        # The next reindex deletes what is left (see _drop_inactive).
        log.warning("reindex_cleanup_failed", kb_id=kb_id, generation=generation,
                    exc_info=True)


def _drop_inactive(conn: psycopg.Connection[Any], kb_id: int) -> int:
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
        return _delete_rows(
            conn, "generation <> (SELECT active_generation FROM knowledge_bases WHERE id = %s)",
            [kb_id, kb_id])


def _drop_superseded(conn: psycopg.Connection[Any], kb_id: int) -> int:
    """After the switch: drop the old generation's rows (the switch stands if this fails)."""
    try:
        return _drop_inactive(conn, kb_id)
    except psycopg.Error:
        log.warning("reindex_drop_failed", kb_id=kb_id, exc_info=True)  # next reindex retries
        return 0


def _delete_rows(conn: psycopg.Connection[Any], where: str, params: list[Any]) -> int:
    # Chunks first through their (kb_id, generation) index, rather than one cascade
    # lookup per deleted document.
    conn.execute(f"DELETE FROM chunks WHERE kb_id = %s AND {where}", params)
    cur = conn.execute(f"DELETE FROM documents WHERE kb_id = %s AND {where}", params)
    return cur.rowcount


def _counts(conn: psycopg.Connection[Any], kb_id: int, generation: int) -> tuple[int, int]:
    row = conn.execute(
        "SELECT (SELECT count(*) FROM documents WHERE kb_id = %(id)s AND generation = %(g)s "
        "AND is_latest), (SELECT count(*) FROM chunks WHERE kb_id = %(id)s AND "
        "generation = %(g)s)", {"id": kb_id, "g": generation}).fetchone()
    assert row is not None
    return int(row[0]), int(row[1])
