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

from store import generations, readers
from store.carry import carry_over
from store.db import ensure_vector_index
from store.embedder import Embedder
from store.embedding import embedder_backend
from store.errors import StoreError
from store.ingest import IngestReport, ingest_paths
from store.kb import KnowledgeBase, get_kb, kb_write_lock
from store.kb_profile import refresh_summary_logged
from store.limits import DEFAULT_MAX_FILE_BYTES, DEFAULT_MAX_PDF_PAGES

log = structlog.get_logger("ragbot.reindex")

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
    """What a reindex did. ``failed``/``errors``: sources and items that could not be read
    or embedded; ``kept``: documents whose file or source did not read, carried over from the
    old generation unchanged (an item that failed to embed stops the reindex instead)."""

    kb: str
    old_generation: int
    new_generation: int
    old_model: str
    model: str
    dim: int
    documents: int = 0
    chunks: int = 0
    failed: int = 0
    kept: int = 0
    dropped_documents: int = 0  # rows of superseded (and stale) generations deleted
    seconds: float = 0.0
    errors: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def summary(self) -> str:
        model = (self.model if self.model == self.old_model
                 else f"{self.old_model} → {self.model}")
        kept = f" ({self.kept} kept from the old generation)" if self.kept else ""
        return (f"{self.documents} documents{kept}, {self.chunks} chunks, {self.failed} failed; "
                f"generation {self.old_generation} → {self.new_generation}; model {model} "
                f"({self.dim} dimensions); {self.seconds:.1f} s")


ProgressFn = Callable[[ReindexProgress], None]


def reindex(pool: ConnectionPool[Any], kb_name: str, *, embedder: Embedder,
            progress: bool = False, on_progress: ProgressFn | None = None,
            max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
            max_pdf_pages: int = DEFAULT_MAX_PDF_PAGES) -> ReindexReport:
    """Rebuild KB ``kb_name`` from its recorded sources with ``embedder``; switch atomically.

    ``embedder`` may be another model than the KB's: the switch records it. ``on_progress``
    gets :class:`ReindexProgress` events (a background job forwards them to the admin);
    ``progress`` also logs them every few seconds. A source that is missing or fails, and a
    file that no longer reads, is reported and skipped: its documents keep their current
    version. Raises ReindexInProgressError when another process is writing the KB, and
    ReindexError (old generation still active) when no source could be read or documents of
    the old generation failed to embed or store.
    """
    if pool.max_size < 2:
        # one connection holds the KB lock while the build writes through another
        raise ValueError("reindex needs a connection pool of at least 2 connections")
    started = time.perf_counter()
    with pool.connection() as conn:
        kb = get_kb(conn, kb_name)
        with kb_write_lock(conn, kb.id, wait=False):
            kb = get_kb(conn, kb_name)  # as of now that we hold the lock
            stale = generations.drop_inactive(conn, kb.id)
            if not kb.sources:
                raise ReindexError(f"knowledge base {kb_name!r} has no recorded sources to "
                                   f"re-read; ingest them with `ragbot ingest PATH --kb "
                                   f"{kb_name}` first")
            ensure_vector_index(conn, embedder.dim)
            new = generations.begin(conn, kb, embedder)
            bound = log.bind(kb=kb_name, old_generation=kb.active_generation, generation=new,
                             model=embedder.name)
            bound.info("reindex_started", sources=len(kb.sources))
            report = ReindexReport(kb_name, kb.active_generation, new, kb.embed_model,
                                   embedder.name, embedder.dim)
            emit = _Emitter(kb_name, new, on_progress, bound if progress else None)
            try:
                outcome = _build(pool, kb, new, embedder=embedder, report=report, emit=emit,
                                 limits=(max_file_bytes, max_pdf_pages))
                _keep(conn, kb, new, embedder=embedder, report=report, outcome=outcome)
                _check_complete(conn, kb, new, report, outcome.hard_failures)
                emit("switching", emit.done, emit.total)
                generations.switch(conn, kb.id, new, embedder)
                refresh_summary_logged(conn, kb.id)
            except BaseException as exc:
                bound.warning("reindex_failed", error=type(exc).__name__)
                generations.abandon(conn, kb.id, new)
                raise
            report.dropped_documents = stale + generations.drop_superseded(conn, kb.id)
        report.documents, report.chunks = generations.counts(conn, kb.id, new)
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


def _build(pool: ConnectionPool[Any], kb: KnowledgeBase, generation: int, *,
           embedder: Embedder, report: ReindexReport, emit: _Emitter,
           limits: tuple[int, int]) -> _Outcome:
    """Ingest every recorded source into ``generation``."""
    paths = [str(s["path"]) for s in kb.sources]
    outcome = _Outcome()
    expected = [_expected(p) for p in paths]
    base = 0  # documents of the sources already built
    for i, (source, path) in enumerate(zip(kb.sources, paths, strict=True)):
        after = sum(expected[i + 1:])

        def tick(done: int, total: int, *, _base: int = base, _after: int = after,
                 _path: str = path, _expected: int = expected[i]) -> None:
            emit("building", _base + done, _base + max(total, _expected) + _after, _path)

        tick(0, 0)
        if not Path(path).exists():
            _skip(report, outcome, path, "no such file or folder")
            base += expected[i]
            continue
        try:
            result: IngestReport = ingest_paths(
                pool, kb.name, [path], embedder=embedder, doc_type=source.get("doc_type"),
                acl=source.get("acl") or None, max_file_bytes=limits[0],
                max_pdf_pages=limits[1], generation=generation, record_sources=False,
                on_progress=tick)
        except Exception as exc:  # one source's problem; the others are rebuilt
            _skip(report, outcome, path,
                  f"{type(exc).__name__}: {' '.join(str(exc).split())[:200]}")
            base += expected[i]
            continue
        report.failed += result.failed
        report.errors.extend(result.errors)
        outcome.unreadable.update(result.unreadable)
        outcome.hard_failures += result.failed - len(result.unreadable)
        base += max(expected[i], result.new + result.updated + result.unchanged + result.failed)
    if kb.sources and len(outcome.skipped) == len(kb.sources):
        raise ReindexError(
            f"reindex of {kb.name!r} stopped: none of its sources could be read ("
            + "; ".join(report.errors[:_ERRORS_SHOWN]) + f"); the knowledge base is unchanged "
            f"(generation {kb.active_generation} is still active)")
    return outcome


def _skip(report: ReindexReport, outcome: _Outcome, path: str, reason: str) -> None:
    report.failed += 1
    report.errors.append(f"{path}: source skipped ({reason}); its documents keep their current "
                         "version (fix the source and reindex again)")
    outcome.skipped.append(path)


@dataclass
class _Outcome:
    """What a build could not do: sources skipped (missing or failed), documents whose file
    did not read, and other failures (embedding, storing, unidentified corpus lines)."""

    skipped: list[str] = field(default_factory=list)
    unreadable: set[str] = field(default_factory=set)
    hard_failures: int = 0


def _keep(conn: psycopg.Connection[Any], kb: KnowledgeBase, generation: int, *,
          embedder: Embedder, report: ReindexReport, outcome: _Outcome) -> None:
    """Carry over the documents of skipped sources and of files that did not read."""
    if not outcome.skipped and not outcome.unreadable:
        return
    kept = carry_over(conn, kb.id, kb.active_generation, generation, keys=outcome.unreadable,
                      sources=outcome.skipped, embedder=embedder,
                      same_model=(kb.embed_model, kb.embed_dim, kb.embed_backend)
                      == (embedder.name, embedder.dim, embedder_backend(embedder)))
    report.kept = len(kept)


def _expected(path: str) -> int:
    the_plan = readers.plan([path])
    return the_plan.total + len(the_plan.failures)


def _check_complete(conn: psycopg.Connection[Any], kb: KnowledgeBase, generation: int,
                    report: ReindexReport, hard_failures: int) -> None:
    """Refuse to switch to a generation that lost documents to errors.

    Items that also failed before (never in the old generation) do not block a reindex, nor
    do files that did not read (kept, see :func:`_keep`); documents whose file left a
    recorded folder are dropped, as ``--prune`` would.
    """
    row = conn.execute(
        "SELECT count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM documents n WHERE "
        "n.kb_id = o.kb_id AND n.generation = %(new)s AND n.doc_key = o.doc_key AND "
        "n.is_latest)), count(*) FROM documents o WHERE o.kb_id = %(id)s AND "
        "o.generation = %(old)s AND o.is_latest",
        {"id": kb.id, "old": kb.active_generation, "new": generation}).fetchone()
    assert row is not None
    missing, old_total = int(row[0]), int(row[1])
    lost = missing > 0 and hard_failures > 0
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
