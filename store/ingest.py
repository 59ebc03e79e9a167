"""Ingestion: documents -> chunks -> embeddings -> rows, versioned and idempotent.

Documents are looked up by ``doc_key`` in the KB's generation; an unchanged content hash is
skipped without writes. Changed and new documents are chunked, then embedded together in
large batches (many documents per call, which is where the time goes), then written: each
document in its own savepoint, so a document whose embedding or insert fails leaves no rows
while the rest of the batch commits. A changed document's old version is archived (its
chunks deleted) in the same transaction that inserts the new one.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import psycopg
import structlog
from psycopg_pool import ConnectionPool

from store import ingest_rows as rows
from store import readers
from store.acl_keep import current_acls, kept_acl, kept_note
from store.chunking import chunk_text, embedding_input
from store.embedder import Embedder, Vectors
from store.embedding import embedder_backend
from store.errors import BackendMismatchError, ModelMismatchError, StoreError
from store.glossary import glossary_file, parse_glossary, replace_glossary
from store.kb import (
    KnowledgeBase,
    find_kb,
    get_kb,
    get_or_create_kb,
    kb_write_lock,
    record_source,
)
from store.kb_profile import refresh_summary_logged
from store.limits import DEFAULT_MAX_FILE_BYTES, DEFAULT_MAX_PDF_PAGES, ReadLimits
from store.readers import ReadFailure, Scope
from store.types import ChunkDraft, SourceDocument

log = structlog.get_logger("ragbot.ingest")

EMBED_BATCH_CHUNKS = 256  # chunks embedded per call: many documents share one call
LOOKUP_BATCH_DOCS = 64

@dataclass
class IngestReport:
    """What one ingest run did. ``errors`` holds one line per failed item."""

    new: int = 0
    updated: int = 0
    unchanged: int = 0
    failed: int = 0
    pruned: int = 0
    chunks: int = 0
    seconds: float = 0.0
    errors: list[str] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)  # not failures: things to act on
    embed_seconds: float = 0.0  # of ``seconds``, spent inside the embedder
    unreadable: list[str] = field(default_factory=list)  # doc_keys whose file did not read
    notes: list[str] = field(default_factory=list)  # e.g. a document that kept its access list

    def summary(self) -> str:
        return (f"{self.new} new, {self.updated} updated, {self.unchanged} unchanged, "
                f"{self.failed} failed, {self.pruned} pruned documents; {self.chunks} chunks; "
                f"{self.seconds:.1f} s")


@dataclass
class _Pending:
    doc: SourceDocument
    content_hash: str
    previous_id: int | None  # the latest version's row, archived when this one lands
    version: int
    drafts: list[ChunkDraft]
    inputs: list[str]  # embedding inputs, one per draft


@dataclass
class _Run:
    conn: psycopg.Connection[Any]
    kb: KnowledgeBase
    generation: int
    embedder: Embedder
    report: IngestReport
    tick: Callable[[], None]
    seen: set[str] = field(default_factory=set)
    landed: set[str] = field(default_factory=set)  # doc keys now stored (new or unchanged)


def content_hash(doc: SourceDocument) -> str:
    """Hash of everything that ends up in the rows, so any change makes a new version."""
    payload = json.dumps([doc.title, doc.text, doc.doc_type, sorted(doc.acl), doc.source,
                          doc.fmt], ensure_ascii=False)
    return hashlib.sha256(payload.encode()).hexdigest()


def _resolve(conn: psycopg.Connection[Any], kb_name: str, embedder: Embedder,
             generation: int | None) -> tuple[KnowledgeBase, int]:
    if generation is None:
        kb = get_or_create_kb(conn, kb_name, embedder)
        return kb, kb.active_generation
    kb = get_kb(conn, kb_name)
    row = conn.execute("SELECT embed_model, embed_dim, embed_backend FROM generations "
                       "WHERE kb_id = %s AND generation = %s", [kb.id, generation]).fetchone()
    model, dim, backend = ((row[0], row[1], row[2]) if row
                           else (kb.embed_model, kb.embed_dim, kb.embed_backend))
    if (model, dim) != (embedder.name, embedder.dim):
        raise ModelMismatchError(kb.name, model, dim, embedder.name, embedder.dim)
    if backend != embedder_backend(embedder):
        raise BackendMismatchError(kb.name, backend, embedder_backend(embedder))
    return kb, generation


def _lookup(run: _Run, docs: list[SourceDocument]) -> list[_Pending]:
    """Skip unchanged documents; chunk the rest."""
    keys = [d.doc_key for d in docs]
    known = rows.newest_versions(run.conn, run.kb.id, run.generation, keys)
    # A reindex builds an empty generation: the current lists are in the active one.
    rebuilding = run.generation != run.kb.active_generation
    acls = current_acls(run.conn, run.kb.id, run.kb.active_generation, keys)
    pending: list[_Pending] = []
    for listed in docs:
        keep = kept_acl(listed, acls.get(listed.doc_key), rebuilding=rebuilding)
        doc = listed if keep is None else dataclasses.replace(listed, acl=keep)
        if keep is not None and not rebuilding:
            run.report.notes.append(kept_note(doc, keep))
        digest = content_hash(doc)
        stored = known.get(doc.doc_key)
        if stored and stored.is_latest and stored.content_hash == digest:
            run.report.unchanged += 1
            run.landed.add(doc.doc_key)
            run.tick()
            continue
        drafts = chunk_text(doc.text, doc.fmt)
        if not drafts:
            _fail(run, f"{doc.source}: no text to index", "add content")
            continue
        pending.append(_Pending(
            doc, digest, stored.id if stored and stored.is_latest else None,
            stored.version + 1 if stored else 1, drafts,
            [embedding_input(doc.title, d.heading_path, d.text) for d in drafts]))
    return pending


def _fail(run: _Run, item: str, fix: str = "") -> None:
    run.report.failed += 1
    run.report.errors.append(item + (f" ({fix})" if fix else ""))
    run.tick()


def _embed(run: _Run, batch: list[_Pending]) -> list[tuple[_Pending, Vectors]]:
    """Vectors for every pending document; one call for the batch, per document on error."""
    texts = [t for p in batch for t in p.inputs]
    started = time.perf_counter()
    try:
        vectors = _checked(run.embedder.embed_documents(texts), len(texts), run.embedder.dim)
        run.report.embed_seconds += time.perf_counter() - started
    except Exception:
        out: list[tuple[_Pending, Vectors]] = []
        for pending in batch:
            try:
                out.append((pending, _checked(run.embedder.embed_documents(pending.inputs),
                                              len(pending.inputs), run.embedder.dim)))
            except Exception as exc:
                _fail(run, f"{pending.doc.source}: embedding failed ({type(exc).__name__}: "
                      f"{exc})", "check the document's text; other documents were ingested")
        return out
    out, start = [], 0
    for pending in batch:
        out.append((pending, vectors[start:start + len(pending.inputs)]))
        start += len(pending.inputs)
    return out


def _checked(vectors: Vectors, count: int, dim: int) -> Vectors:
    array = np.asarray(vectors, dtype=np.float32)
    if array.shape != (count, dim) or not np.isfinite(array).all():
        raise StoreError(f"embedder returned shape {array.shape} (expected {(count, dim)}) "
                         "or non-finite values")
    return array


def _flush(run: _Run, batch: list[_Pending]) -> None:
    if not batch:
        return
    embedded = _embed(run, batch)
    with run.conn.transaction():
        for pending, vectors in embedded:
            try:
                with run.conn.transaction():  # a savepoint: a failure leaves no rows
                    rows.write_version(
                        run.conn, run.kb.id, run.generation, doc=pending.doc,
                        content_hash=pending.content_hash, version=pending.version,
                        previous_id=pending.previous_id, drafts=pending.drafts,
                        inputs=pending.inputs, vectors=vectors, dim=run.embedder.dim)
            except psycopg.Error as exc:
                _fail(run, f"{pending.doc.source}: could not be stored "
                      f"({type(exc).__name__}: {exc})".replace("\n", " "),
                      "other documents were ingested")
                continue
            if pending.previous_id is None:
                run.report.new += 1
            else:
                run.report.updated += 1
            run.report.chunks += len(pending.drafts)
            run.landed.add(pending.doc.doc_key)
            run.tick()


def _valid(run: _Run, doc: SourceDocument) -> bool:
    if doc.doc_key in run.seen:
        _fail(run, f"{doc.source}: duplicate document id {doc.doc_key!r} in this ingest",
              "give each document a unique id; the first one was kept")
        return False
    run.seen.add(doc.doc_key)
    if not doc.text.strip():
        _fail(run, f"{doc.source}: document {doc.doc_key!r} is empty", "add content")
        return False
    try:
        readers.normalize_acl(list(doc.acl), doc.source)
    except ValueError as exc:
        _fail(run, str(exc))
        return False
    return True


def _process(run: _Run, items: Iterable[SourceDocument | ReadFailure]) -> None:
    lookup: list[SourceDocument] = []
    embed: list[_Pending] = []
    embed_chunks = 0

    def drain_lookup() -> None:
        nonlocal embed_chunks
        for pending in _lookup(run, lookup):
            embed.append(pending)
            embed_chunks += len(pending.drafts)
        lookup.clear()

    for item in items:
        if isinstance(item, ReadFailure):
            _fail(run, item.message())
            if item.doc_key is not None:
                run.report.unreadable.append(item.doc_key)
            continue
        if not _valid(run, item):
            continue
        lookup.append(item)
        if len(lookup) >= LOOKUP_BATCH_DOCS:
            drain_lookup()
        if embed_chunks >= EMBED_BATCH_CHUNKS:
            _flush(run, embed)
            embed.clear()
            embed_chunks = 0
    drain_lookup()
    _flush(run, embed)


def _prune(run: _Run, scopes: Sequence[Scope], prune: bool) -> None:
    # A file reached through two scopes (a folder and a subfolder, a folder twice) was read
    # once and recorded in one of them: prune each place against everything this run saw.
    seen = set().union(*(scope.seen for scope in scopes))
    places: dict[tuple[str, str], bool] = {}
    for scope in scopes:
        key = (scope.kind, scope.path)
        places[key] = places.get(key, True) and scope.complete
    for (kind, path), complete in places.items():
        if not prune:
            gone = rows.count_vanished(run.conn, run.kb.id, run.generation,
                                       Scope(kind, path, seen)) if complete else 0
            if gone:  # still answerable until pruned: say so, once per place
                what = "files" if kind == "folder" else "document ids"
                run.report.notices.append(
                    f"{path}: {gone} recorded {what} are gone from it but still answerable; "
                    f"`ragbot ingest {path} --kb {run.kb.name} --prune` archives them")
            continue
        if not complete:
            run.report.errors.append(
                f"{path}: not pruned because some lines could not be identified "
                "(fix them and ingest again with --prune)")
            continue
        run.report.pruned += rows.prune_scope(run.conn, run.kb.id, run.generation,
                                              Scope(kind, path, seen))


def _glossary(conn: psycopg.Connection[Any], kb_id: int, path: Path,
              report: IngestReport) -> None:
    """Replace the KB's entries from glossary file ``path``; bad lines become errors."""
    try:
        parsed = parse_glossary(path.read_text(encoding="utf-8"), str(path))
    except (OSError, UnicodeDecodeError) as exc:
        report.errors.append(f"{path}: cannot read the glossary ({exc}); save it as UTF-8 "
                             "text and ingest the folder again")
        return
    report.errors.extend(parsed.problems)
    replace_glossary(conn, kb_id, str(path.resolve()), parsed.entries)


def _execute(pool: ConnectionPool[Any], kb_name: str,
             items: Callable[[], Iterator[SourceDocument | ReadFailure]], *,
             embedder: Embedder, generation: int | None, total: int,
             scopes: Sequence[Scope], sources: Sequence[dict[str, Any]],
             on_progress: Callable[[int, int], None] | None,
             prune: bool = False, glossaries: Sequence[Path] = ()) -> IngestReport:
    report = IngestReport()
    started = time.perf_counter()
    done = 0

    def tick() -> None:
        nonlocal done
        done += 1
        if on_progress is not None:
            on_progress(done, max(total, done))

    with pool.connection() as conn:
        existed = generation is not None or find_kb(conn, kb_name) is not None
        kb, gen = _resolve(conn, kb_name, embedder, generation)
        # A reindex (explicit generation) already holds the KB's write lock for its build.
        lock = kb_write_lock(conn, kb.id) if generation is None else contextlib.nullcontext()
        with lock:
            if generation is None:
                # A reindex may have switched the active generation (and the model) while
                # this ingest waited for the lock: write into the generation active now.
                kb, gen = _resolve(conn, kb_name, embedder, None)
            run = _Run(conn, kb, gen, embedder, report, tick)
            _process(run, items())
            _prune(run, scopes, prune)
            if not existed and not run.landed:
                # Nothing could be ingested: leave no empty KB behind to answer from.
                conn.execute("DELETE FROM knowledge_bases WHERE id = %s", [kb.id])
                report.seconds = time.perf_counter() - started
                return report
            for source in landed_sources(sources, run.landed):
                record_source(conn, kb.id, source)
            for path in glossaries:
                _glossary(conn, kb.id, path, report)
            conn.execute("UPDATE knowledge_bases SET last_ingest_at = now() WHERE id = %s",
                         [kb.id])
            if generation is None:  # a reindex refreshes it after its switch
                refresh_summary_logged(conn, kb.id)
    report.seconds = time.perf_counter() - started
    log.info("ingest_done", kb=kb_name, generation=gen, new=report.new,
             updated=report.updated, unchanged=report.unchanged, failed=report.failed,
             pruned=report.pruned, chunks=report.chunks, seconds=round(report.seconds, 2),
             embed_seconds=round(report.embed_seconds, 2))
    return report


def landed_sources(sources: Sequence[dict[str, Any]], landed: set[str]
                   ) -> list[dict[str, Any]]:
    """The sources a reindex should re-read: a file only when it was ingested (a failed one
    would fail again), a folder when something under it was, a corpus when anything was."""
    kept = []
    for source in sources:
        path = str(source["path"])
        under = path.rstrip("/") + "/"
        if (path in landed or any(key.startswith(under) for key in landed)
                or (path.endswith(".jsonl") and landed)):
            kept.append(source)
    return kept


def ingest_paths(pool: ConnectionPool[Any], kb_name: str, paths: Sequence[str | Path], *,
                 embedder: Embedder, doc_type: str | None = None,
                 acl: Sequence[str] | None = None, prune: bool = False,
                 max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
                 max_pdf_pages: int = DEFAULT_MAX_PDF_PAGES, generation: int | None = None,
                 record_sources: bool = True, progress: bool = False,
                 on_progress: Callable[[int, int], None] | None = None) -> IngestReport:
    """Ingest files, folders (recursively) and ``.jsonl`` corpora into KB ``kb_name``.

    ``doc_type`` and ``acl`` apply to documents that do not set their own (front matter,
    corpus metadata). ``generation=None`` writes the KB's active generation; a reindex passes
    the generation it is building (and holds the KB write lock itself). ``prune`` archives
    documents whose file vanished from an ingested folder or whose id vanished from an
    ingested corpus. ``max_file_bytes`` and ``max_pdf_pages`` (with the constants in
    ``store.limits``) bound what one file may cost; a file over a limit is that file's
    failure. ``progress`` is accepted for symmetry with the CLI, which draws the bar
    through ``on_progress``.
    """
    del progress
    if acl:
        readers.normalize_acl(list(acl), "--acl")  # fail fast, before touching the DB
    the_plan = readers.plan(paths)
    glossaries = [g for p in paths if (g := glossary_file(Path(p).expanduser())) is not None]
    sources = [] if not record_sources else [
        {"path": str(Path(p).expanduser().resolve()), "doc_type": doc_type,
         "acl": list(acl) if acl else None}
        for p in paths if Path(p).expanduser().exists()]
    return _execute(
        pool, kb_name,
        lambda: readers.read_plan(the_plan, doc_type=doc_type, acl=acl,
                                  limits=ReadLimits(max_file_bytes, max_pdf_pages)),
        embedder=embedder, generation=generation, total=the_plan.total,
        scopes=the_plan.scopes, sources=sources, on_progress=on_progress, prune=prune,
        glossaries=glossaries)


def ingest_documents(pool: ConnectionPool[Any], kb_name: str, docs: Iterable[SourceDocument],
                     *, embedder: Embedder, generation: int | None = None,
                     on_progress: Callable[[int, int], None] | None = None) -> IngestReport:
    """Ingest already-read documents (same versioning and batching as ``ingest_paths``)."""
    listed = docs if isinstance(docs, list) else None
    return _execute(pool, kb_name, lambda: iter(docs), embedder=embedder,
                    generation=generation, total=len(listed) if listed is not None else 0,
                    scopes=(), sources=(), on_progress=on_progress)
