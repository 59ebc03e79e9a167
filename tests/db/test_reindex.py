"""Reindex against the real database and the real embedder: the new generation is built
beside the old one, switched in one transaction, and a failed build changes nothing."""

from __future__ import annotations

import argparse
import hashlib
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from psycopg_pool import ConnectionPool

from bot.cli import reindex as command
from bot.context import AppContext
from bot.settings import Settings
from store.embedder import Embedder, Vectors
from store.errors import ModelMismatchError, ReindexInProgressError
from store.ingest import ingest_paths
from store.kb import get_kb, kb_write_lock
from store.reindex import ReindexError, ReindexProgress, reindex
from store.search import search
from store.tokenize import tokens

pytestmark = pytest.mark.db

KB = "handbook"

DOCS = {
    "redis.md": "# Redis memory\n\nWhen Redis memory is full, raise maxmemory or set an "
                "eviction policy such as allkeys-lru, then check the persistence settings.",
    "vacation.md": "# Vacation policy\n\nEmployees get twenty-five days of paid vacation a "
                   "year; request leave in the HR portal two weeks ahead.",
    "deploy.md": "# Deployment rollback\n\nTo roll back a deployment, run the rollback "
                 "pipeline with the previous release tag and page the on-call engineer.",
    "expenses.md": "# Travel expenses\n\nSubmit travel expense receipts within thirty days; "
                   "hotel costs above the limit need a manager's approval.",
    "vpn.md": "# VPN access\n\nInstall the VPN client, sign in with single sign-on, and "
              "contact IT when the certificate expires.",
}


class SlowEmbedder:
    """The real embedder, slowed: the first batch waits until ``release`` is set."""

    def __init__(self, inner: Embedder, started: threading.Event,
                 release: threading.Event) -> None:
        self.name, self.dim, self.multilingual = inner.name, inner.dim, inner.multilingual
        self._inner, self._started, self._release = inner, started, release

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        self._started.set()
        assert self._release.wait(30), "the searcher never got going"
        return self._inner.embed_documents(texts)

    def embed_query(self, text: str) -> Vectors:
        return self._inner.embed_query(text)


class FailingEmbedder:
    """The real embedder until ``limit`` texts are embedded, then it raises ``error``."""

    def __init__(self, inner: Embedder, limit: int, error: BaseException) -> None:
        self.name, self.dim, self.multilingual = inner.name, inner.dim, inner.multilingual
        self._inner, self._limit, self._error = inner, limit, error
        self.embedded = 0

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        if self.embedded + len(texts) > self._limit:
            raise self._error
        self.embedded += len(texts)
        return self._inner.embed_documents(texts)

    def embed_query(self, text: str) -> Vectors:
        return self._inner.embed_query(text)


class HashingEmbedder:
    """Another 'model': hashed bag of words, 64 dimensions, deterministic."""

    name = "test-hashing-64"
    dim = 64
    multilingual = False

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for token in tokens(text):
                digest = hashlib.blake2b(token.encode(), digest_size=8).digest()
                out[row, int.from_bytes(digest) % self.dim] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.maximum(norms, 1e-12)

    def embed_query(self, text: str) -> Vectors:
        return self.embed_documents([text])[0]


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "handbook"
    folder.mkdir()
    for name, text in DOCS.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


@pytest.fixture
def kb_pool(pool: ConnectionPool, corpus: Path, embedder: Embedder) -> ConnectionPool:
    """A pool whose KB holds the corpus, ingested with the real embedder."""
    report = ingest_paths(pool, KB, [corpus], embedder=embedder)
    assert report.new == len(DOCS)
    assert report.failed == 0
    return pool


def _rows(pool: ConnectionPool) -> dict[str, Any]:
    """Everything a reindex may touch, to compare before and after."""
    with pool.connection() as conn:
        kb = get_kb(conn, KB)
        return {
            "kb": (kb.active_generation, kb.embed_model, kb.embed_dim),
            "generations": conn.execute(
                "SELECT generation, state FROM generations WHERE kb_id = %s ORDER BY 1",
                [kb.id]).fetchall(),
            "documents": conn.execute(
                "SELECT id, generation, doc_key, content_hash FROM documents ORDER BY id"
            ).fetchall(),
            "chunks": conn.execute(
                "SELECT id, generation, document_id, text FROM chunks ORDER BY id").fetchall(),
        }


def _top_doc(pool: ConnectionPool, query: str, embedder: Embedder) -> str:
    hits = search(pool, KB, query, embedder=embedder, k=3)
    assert hits, f"no hits for {query!r}"
    return Path(hits[0].doc_id).name


def test_searches_during_a_reindex_answer_from_the_old_generation(
        kb_pool: ConnectionPool, embedder: Embedder) -> None:
    before = _rows(kb_pool)
    old_chunk_ids = {r[0] for r in before["chunks"]}
    started, release, finished = threading.Event(), threading.Event(), threading.Event()
    during_build: list[set[int]] = []
    answers: list[str] = []
    errors: list[BaseException] = []

    def searcher() -> None:
        try:
            while not finished.is_set():
                hits = search(kb_pool, KB, "Redis memory is full", embedder=embedder, k=3)
                answers.append(Path(hits[0].doc_id).name if hits else "")
                if started.is_set() and not release.is_set():
                    during_build.append({h.chunk_id for h in hits})
                    if len(during_build) >= 3:
                        release.set()  # let the build go on once searches ran during it
        except BaseException as exc:
            errors.append(exc)
            release.set()

    thread = threading.Thread(target=searcher)
    thread.start()
    try:
        report = reindex(kb_pool, KB, embedder=SlowEmbedder(embedder, started, release))
    finally:
        finished.set()
        release.set()
        thread.join()

    assert errors == []
    assert len(during_build) >= 3
    assert all(ids and ids <= old_chunk_ids for ids in during_build)
    assert answers
    assert set(answers) == {"redis.md"}
    assert report.old_generation == 1
    assert report.new_generation == 2
    assert _top_doc(kb_pool, "Redis memory is full", embedder) == "redis.md"
    after_ids = {r[0] for r in _rows(kb_pool)["chunks"]}
    assert after_ids.isdisjoint(old_chunk_ids)  # answers now come from the new generation


def test_a_reindex_that_fails_midway_changes_nothing(kb_pool: ConnectionPool,
                                                     embedder: Embedder) -> None:
    before = _rows(kb_pool)
    failing = FailingEmbedder(embedder, limit=2, error=RuntimeError("embedding server gone"))

    with pytest.raises(ReindexError, match="could not be rebuilt") as caught:
        reindex(kb_pool, KB, embedder=failing)

    assert failing.embedded == 2  # two documents were written into the new generation...
    assert "embedding server gone" in str(caught.value)
    assert "unchanged" in str(caught.value)
    after = _rows(kb_pool)
    # ...and are gone again; the build is recorded as failed, nothing else moved
    assert after["generations"] == [*before["generations"], (2, "failed")]
    assert {k: v for k, v in after.items() if k != "generations"} == {
        k: v for k, v in before.items() if k != "generations"}
    assert _top_doc(kb_pool, "paid vacation days", embedder) == "vacation.md"


def test_an_interrupted_reindex_leaves_the_old_generation_active(
        kb_pool: ConnectionPool, embedder: Embedder) -> None:
    before = _rows(kb_pool)
    with pytest.raises(KeyboardInterrupt):
        reindex(kb_pool, KB, embedder=FailingEmbedder(embedder, 0, KeyboardInterrupt()))
    after = _rows(kb_pool)
    assert after["kb"] == before["kb"]
    assert after["documents"] == before["documents"]
    assert after["chunks"] == before["chunks"]
    assert (2, "failed") in after["generations"]


def test_reindex_with_another_model_switches_the_kb_and_ends_the_mismatch(
        kb_pool: ConnectionPool, embedder: Embedder) -> None:
    other = HashingEmbedder()
    with pytest.raises(ModelMismatchError, match="ragbot reindex --kb handbook"):
        search(kb_pool, KB, "rollback a deployment", embedder=other)

    events: list[ReindexProgress] = []
    report = reindex(kb_pool, KB, embedder=other, on_progress=events.append)

    assert (report.old_model, report.model, report.dim) == (embedder.name, other.name, 64)
    assert report.documents == len(DOCS)
    assert report.chunks >= len(DOCS)
    assert _top_doc(kb_pool, "rollback a deployment", other) == "deploy.md"
    with pytest.raises(ModelMismatchError):
        search(kb_pool, KB, "rollback a deployment", embedder=embedder)
    with kb_pool.connection() as conn:
        kb = get_kb(conn, KB)
        index = conn.execute("SELECT to_regclass('chunks_embedding_hnsw_64')").fetchone()
    assert (kb.embed_model, kb.embed_dim, kb.active_generation) == (other.name, 64, 2)
    assert index is not None
    assert index[0] is not None
    assert [e.stage for e in events][-2:] == ["switching", "done"]
    building = [e for e in events if e.stage == "building"]
    assert building[-1].done == building[-1].total == len(DOCS)


def test_superseded_generation_rows_are_dropped_after_the_switch(
        kb_pool: ConnectionPool, embedder: Embedder) -> None:
    first = reindex(kb_pool, KB, embedder=embedder)
    second = reindex(kb_pool, KB, embedder=embedder)

    assert (first.new_generation, second.new_generation) == (2, 3)
    assert second.dropped_documents == len(DOCS)
    rows = _rows(kb_pool)
    assert rows["generations"] == [(1, "superseded"), (2, "superseded"), (3, "active")]
    assert {r[1] for r in rows["documents"]} == {3}
    assert {r[1] for r in rows["chunks"]} == {3}
    assert len(rows["documents"]) == len(DOCS)


def test_a_build_left_by_a_killed_process_is_cleaned_up_by_the_next_reindex(
        kb_pool: ConnectionPool, corpus: Path, embedder: Embedder) -> None:
    # What a reindex killed mid-build leaves: a 'building' generation with some rows.
    with kb_pool.connection() as conn:
        kb = get_kb(conn, KB)
        conn.execute("INSERT INTO generations (kb_id, generation, embed_model, embed_dim, "
                     "state) VALUES (%s, 2, %s, %s, 'building')",
                     [kb.id, embedder.name, embedder.dim])
    ingest_paths(kb_pool, KB, [corpus / "vpn.md"], embedder=embedder, generation=2,
                 record_sources=False)

    report = reindex(kb_pool, KB, embedder=embedder)

    assert report.new_generation == 3
    rows = _rows(kb_pool)
    assert rows["generations"] == [(1, "superseded"), (2, "failed"), (3, "active")]
    assert {r[1] for r in rows["documents"]} == {3}
    assert report.dropped_documents == len(DOCS) + 1


def test_reindex_refuses_while_another_process_writes_the_kb(kb_pool: ConnectionPool,
                                                             embedder: Embedder) -> None:
    before = _rows(kb_pool)
    with kb_pool.connection() as conn:
        kb = get_kb(conn, KB)
        with kb_write_lock(conn, kb.id), pytest.raises(ReindexInProgressError, match=KB):
            reindex(kb_pool, KB, embedder=embedder)
    assert _rows(kb_pool) == before


def test_items_that_never_ingested_do_not_block_a_reindex(
        pool: ConnectionPool, corpus: Path, embedder: Embedder) -> None:
    (corpus / "empty.md").write_text("", encoding="utf-8")
    first = ingest_paths(pool, KB, [corpus], embedder=embedder)
    assert first.failed == 1

    report = reindex(pool, KB, embedder=embedder)

    assert report.failed == 1
    assert "empty.md" in report.errors[0]
    assert report.documents == len(DOCS)


def test_a_document_whose_file_left_the_folder_is_dropped(
        kb_pool: ConnectionPool, corpus: Path, embedder: Embedder) -> None:
    (corpus / "vpn.md").unlink()
    report = reindex(kb_pool, KB, embedder=embedder)
    assert report.documents == len(DOCS) - 1
    assert "vpn.md" not in {Path(r[2]).name for r in _rows(kb_pool)["documents"]}


def test_a_kb_whose_sources_all_vanished_is_not_emptied(
        kb_pool: ConnectionPool, corpus: Path, embedder: Embedder) -> None:
    before = _rows(kb_pool)
    for path in corpus.iterdir():
        path.unlink()
    corpus.rmdir()
    with pytest.raises(ReindexError, match="unchanged"):
        reindex(kb_pool, KB, embedder=embedder)
    after = _rows(kb_pool)
    assert after["documents"] == before["documents"]
    assert after["kb"] == before["kb"]


def test_reindex_command_prints_the_summary(kb_pool: ConnectionPool, embedder: Embedder,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    parser = argparse.ArgumentParser()
    command.register(parser.add_subparsers())
    args = parser.parse_args(["reindex", "--kb", KB, "--no-progress"])
    ctx = AppContext(Settings())
    ctx.__dict__.update(pool=kb_pool, embedder=embedder)  # the cached dependencies

    assert args.handler(args, ctx) == 0

    out = capsys.readouterr().out
    assert f"reindexed {KB}: {len(DOCS)} documents" in out
    assert "generation 1 → 2" in out
    assert embedder.name in out


def test_an_ingest_that_waited_for_a_reindex_writes_into_the_new_generation(
        kb_pool: ConnectionPool, corpus: Path, tmp_path: Path, embedder: Embedder) -> None:
    extra = tmp_path / "later"
    extra.mkdir()
    (extra / "printer.md").write_text("# Printer\n\nThe office printer on floor three needs "
                                      "a badge to release print jobs.", encoding="utf-8")
    started, release = threading.Event(), threading.Event()
    outcome: list[Any] = []

    def ingest_later() -> None:
        assert started.wait(30)
        try:
            outcome.append(ingest_paths(kb_pool, KB, [extra], embedder=embedder))
        except BaseException as exc:  # asserted below
            outcome.append(exc)

    thread = threading.Thread(target=ingest_later)
    thread.start()
    timer = threading.Timer(1.0, release.set)  # the ingest is waiting on the lock by then
    timer.start()
    try:
        reindex(kb_pool, KB, embedder=SlowEmbedder(embedder, started, release))
    finally:
        release.set()
        thread.join()
        timer.cancel()

    assert len(outcome) == 1
    assert not isinstance(outcome[0], BaseException), outcome[0]
    assert outcome[0].new == 1
    assert _top_doc(kb_pool, "office printer badge", embedder) == "printer.md"


@pytest.fixture
def two_sources(kb_pool: ConnectionPool, corpus: Path, tmp_path: Path,
                embedder: Embedder) -> Path:
    """The KB also holds a second source, a folder with one restricted document."""
    other = tmp_path / "facilities"
    other.mkdir()
    (other / "printer.md").write_text("# Printer\n\nThe office printer on floor three needs a "
                                      "badge to release print jobs.", encoding="utf-8")
    assert ingest_paths(kb_pool, KB, [other], embedder=embedder,
                        acl=["group:facilities"]).new == 1
    return other


def _break_sources(corpus: Path, other: Path) -> None:
    """One file turns into garbage; the second source's folder disappears."""
    (corpus / "vpn.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00garbage")
    (other / "printer.md").unlink()
    other.rmdir()


@pytest.mark.parametrize("model", ["same", "other"])
def test_a_missing_source_and_an_unreadable_file_are_skipped_and_keep_their_documents(
        kb_pool: ConnectionPool, corpus: Path, two_sources: Path, embedder: Embedder,
        model: str) -> None:
    _break_sources(corpus, two_sources)
    target: Embedder = embedder if model == "same" else HashingEmbedder()

    report = reindex(kb_pool, KB, embedder=target)

    assert report.new_generation == 2
    assert (report.documents, report.kept, report.failed) == (len(DOCS) + 1, 2, 2)
    assert any("vpn.md: binary content" in e for e in report.errors), report.errors
    assert any(str(two_sources) in e and "source skipped" in e for e in report.errors)
    # the kept documents are searchable in the new generation, with their access list
    assert _top_doc(kb_pool, "VPN client certificate expires", target) == "vpn.md"
    hits = search(kb_pool, KB, "office printer badge", embedder=target, k=1,
                  principals=["group:facilities"])
    assert [Path(h.doc_id).name for h in hits] == ["printer.md"]
    with kb_pool.connection() as conn:
        acl = conn.execute("SELECT acl FROM documents WHERE generation = 2 AND doc_key LIKE "
                           "'%%printer.md'").fetchone()
    assert acl == (["group:facilities"],)


def test_reindex_command_exits_1_listing_what_it_skipped(
        kb_pool: ConnectionPool, corpus: Path, two_sources: Path, embedder: Embedder,
        capsys: pytest.CaptureFixture[str]) -> None:
    _break_sources(corpus, two_sources)
    parser = argparse.ArgumentParser()
    command.register(parser.add_subparsers())
    args = parser.parse_args(["reindex", "--kb", KB, "--no-progress"])
    ctx = AppContext(Settings())
    ctx.__dict__.update(pool=kb_pool, embedder=embedder)

    assert args.handler(args, ctx) == 1

    out = capsys.readouterr()
    assert f"{len(DOCS) + 1} documents (2 kept from the old generation)" in out.out
    assert "skipped: " in out.err
    assert "vpn.md" in out.err


def test_the_job_workers_reindex_applies_the_configured_file_limit(
        kb_pool: ConnectionPool, corpus: Path, embedder: Embedder) -> None:
    # the same KB reindexed by the job worker's ReindexFn: with a 64-byte file limit every
    # sample file is over it, so each is skipped and kept from the old generation
    from bot.jobs import store_reindex

    report = store_reindex(kb_pool, embedder, (64, 2000))(KB, lambda _p: None)

    assert report.failed == len(DOCS)
    assert any("limit" in e for e in report.errors), report.errors
    default = store_reindex(kb_pool, embedder)(KB, lambda _p: None)
    assert default.failed == 0
