"""Ingestion against the real PostgreSQL and the real MiniLM embedder."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import docx
import numpy as np
import pytest
from psycopg_pool import ConnectionPool

from store.embedder import Embedder, Vectors
from store.errors import ModelMismatchError
from store.ingest import IngestReport, ingest_documents, ingest_paths
from store.kb import kb_status
from store.tokenize import keyword_text
from store.types import SourceDocument

pytestmark = pytest.mark.db


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _corpus(path: Path, records: Sequence[dict[str, Any] | str]) -> Path:
    lines = [r if isinstance(r, str) else json.dumps(r, ensure_ascii=False) for r in records]
    return _write(path, "\n".join(lines) + "\n")


def _counts(pool: ConnectionPool, kb: str = "t") -> tuple[int, int, int]:
    with pool.connection() as conn:
        row = conn.execute(
            "SELECT (SELECT count(*) FROM documents d JOIN knowledge_bases k ON k.id = d.kb_id "
            "        WHERE k.name = %(kb)s AND d.is_latest),"
            "       (SELECT count(*) FROM documents d JOIN knowledge_bases k ON k.id = d.kb_id "
            "        WHERE k.name = %(kb)s AND NOT d.is_latest),"
            "       (SELECT count(*) FROM chunks c JOIN knowledge_bases k ON k.id = c.kb_id "
            "        WHERE k.name = %(kb)s)", {"kb": kb}).fetchone()
    assert row is not None
    return row[0], row[1], row[2]


def _keyword_hits(pool: ConnectionPool, word: str) -> list[str]:
    with pool.connection() as conn:
        rows = conn.execute(
            "SELECT d.doc_key FROM chunks c JOIN documents d ON d.id = c.document_id "
            "WHERE c.tsv @@ to_tsquery('simple', %s) ORDER BY 1",
            [keyword_text(word).split()[0]]).fetchall()
    return [r[0] for r in rows]


@pytest.fixture
def docs_dir(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    _write(root / "redis.md", "---\ntitle: Redis 运维手册\ndoc_type: runbook\nacl: [group:ops]\n"
           "---\n# 内存\n\nRedis内存满了时，先检查 maxmemory 配置。然后清理过期键。\n\n"
           "## 持久化\n\n开启 AOF 持久化后仍然不足，需要扩容。\n")
    _write(root / "sub" / "vacation.txt", "Employees get 25 days of paid vacation per year.\n")
    _write(root / "ignored.bin", "not a supported type")
    return root


def test_second_ingest_of_unchanged_folder_writes_nothing(
        pool: ConnectionPool, embedder: Embedder, docs_dir: Path) -> None:
    first = ingest_paths(pool, "t", [docs_dir], embedder=embedder)
    assert (first.new, first.failed, first.errors) == (2, 0, [])
    assert first.chunks >= 3
    before = _counts(pool)
    second = ingest_paths(pool, "t", [docs_dir], embedder=embedder)
    assert (second.new, second.updated, second.unchanged, second.chunks) == (0, 0, 2, 0)
    assert _counts(pool) == before == (2, 0, first.chunks)


def test_chunks_carry_heading_path_acl_and_doc_type_from_front_matter(
        pool: ConnectionPool, embedder: Embedder, docs_dir: Path) -> None:
    ingest_paths(pool, "t", [docs_dir], embedder=embedder, acl=["public"], doc_type="policy")
    with pool.connection() as conn:
        rows = conn.execute(
            "SELECT d.title, d.doc_type, d.acl, c.heading_path, c.acl, c.doc_type, c.dim "
            "FROM chunks c JOIN documents d ON d.id = c.document_id ORDER BY d.title, "
            "c.position").fetchall()
    redis = [r for r in rows if r[0] == "Redis 运维手册"]
    assert [r[3] for r in redis] == [["内存"], ["内存", "持久化"]]
    assert {(r[1], tuple(r[2]), tuple(r[4]), r[5]) for r in redis} == {
        ("runbook", ("group:ops",), ("group:ops",), "runbook")}
    # The .txt has no front matter: the command-line defaults apply; title is the stem.
    vacation = [r for r in rows if r[0] == "vacation"]
    assert vacation
    assert all(r[1] == "policy" and r[4] == ["public"] and r[6] == 384
                            for r in vacation)


def test_changed_file_becomes_version_two_and_old_version_is_archived_without_chunks(
        pool: ConnectionPool, embedder: Embedder, tmp_path: Path) -> None:
    doc = _write(tmp_path / "policy.md", "# Policy\n\nThe office opens at eight o'clock.\n")
    ingest_paths(pool, "t", [doc], embedder=embedder)
    _write(doc, "# Policy\n\nThe office opens at nine o'clock.\n")
    report = ingest_paths(pool, "t", [doc], embedder=embedder)
    assert (report.new, report.updated, report.unchanged) == (0, 1, 0)
    with pool.connection() as conn:
        versions = conn.execute(
            "SELECT d.version, d.is_latest, d.archived_at IS NOT NULL, count(c.id) "
            "FROM documents d LEFT JOIN chunks c ON c.document_id = d.id "
            "GROUP BY d.id ORDER BY d.version").fetchall()
    assert versions == [(1, False, True, 0), (2, True, False, 1)]
    assert _keyword_hits(pool, "nine") == [str(doc.resolve())]
    assert _keyword_hits(pool, "eight") == []


def test_prune_archives_files_removed_from_folder_and_ids_removed_from_corpus(
        pool: ConnectionPool, embedder: Embedder, docs_dir: Path, tmp_path: Path) -> None:
    corpus = _corpus(tmp_path / "c.jsonl", [{"id": "a", "text": "alpha text"},
                                            {"id": "b", "text": "beta text"}])
    ingest_paths(pool, "t", [docs_dir, corpus], embedder=embedder)
    (docs_dir / "sub" / "vacation.txt").unlink()
    _corpus(corpus, [{"id": "a", "text": "alpha text"}])
    kept = ingest_paths(pool, "t", [docs_dir, corpus], embedder=embedder)
    assert kept.pruned == 0
    assert _counts(pool)[0] == 4
    report = ingest_paths(pool, "t", [docs_dir, corpus], embedder=embedder, prune=True)
    assert (report.pruned, report.unchanged) == (2, 2)
    with pool.connection() as conn:
        latest = {r[0] for r in conn.execute("SELECT doc_key FROM documents WHERE is_latest")}
    assert latest == {"a", str((docs_dir / "redis.md").resolve())}
    assert _keyword_hits(pool, "vacation") == []
    assert _keyword_hits(pool, "beta") == []


def test_other_model_than_the_kb_was_built_with_names_reindex(
        pool: ConnectionPool, embedder: Embedder, docs_dir: Path) -> None:
    ingest_paths(pool, "t", [docs_dir], embedder=embedder)

    class Other:
        name, dim, multilingual = "other-model", 8, False

        def embed_documents(self, texts: Sequence[str]) -> Vectors:
            return np.ones((len(texts), 8), dtype=np.float32)

        def embed_query(self, text: str) -> Vectors:
            return np.ones(8, dtype=np.float32)

    with pytest.raises(ModelMismatchError, match="ragbot reindex --kb t"):
        ingest_paths(pool, "t", [docs_dir], embedder=Other())


def test_corpus_acl_doc_type_and_source_come_from_metadata(
        pool: ConnectionPool, embedder: Embedder, tmp_path: Path) -> None:
    corpus = _corpus(tmp_path / "corpus.jsonl", [
        {"id": "d1", "title": "Salaries", "text": "Salary bands for 2025.",
         "metadata": {"doc_type": "hr", "source": "hr-wiki", "acl": ["user:U1", "group:G1"]}},
        {"id": "d2", "title": "Lunch", "text": "Lunch is served at noon."},
    ])
    report = ingest_paths(pool, "t", [corpus], embedder=embedder, acl=["channel:C9"])
    assert report.new == 2
    with pool.connection() as conn:
        rows = dict((r[0], r[1:]) for r in conn.execute(
            "SELECT d.doc_key, d.title, c.doc_type, c.source, c.acl FROM documents d "
            "JOIN chunks c ON c.document_id = d.id"))
    assert rows["d1"] == ("Salaries", "hr", "hr-wiki", ["user:U1", "group:G1"])
    assert rows["d2"][0] == "Lunch"
    assert rows["d2"][3] == ["channel:C9"]
    assert rows["d2"][2] == f"{corpus.resolve()}#d2"


def test_ingest_records_sources_and_last_ingest(
        pool: ConnectionPool, embedder: Embedder, docs_dir: Path) -> None:
    ingest_paths(pool, "t", [docs_dir], embedder=embedder, doc_type="wiki", acl=["group:G"])
    with pool.connection() as conn:
        status = kb_status(conn, "t")
    assert status["sources"] == [{"path": str(docs_dir.resolve()), "doc_type": "wiki",
                                  "acl": ["group:G"]}]
    assert status["last_ingest_at"] is not None
    assert (status["documents"], status["chunks"]) == _counts(pool)[::2]


class _FailingFor:
    """The real embedder, except that it raises for texts containing ``marker``."""

    def __init__(self, inner: Embedder, marker: str) -> None:
        self.inner, self.marker = inner, marker
        self.name, self.dim, self.multilingual = inner.name, inner.dim, inner.multilingual

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        if any(self.marker in t for t in texts):
            raise RuntimeError("model crashed")
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> Vectors:
        return self.inner.embed_query(text)


def test_document_whose_embedding_fails_leaves_no_rows_and_others_commit(
        pool: ConnectionPool, embedder: Embedder, tmp_path: Path) -> None:
    corpus = _corpus(tmp_path / "c.jsonl", [
        {"id": f"d{i}", "text": f"Document number {i} about topic {i}."} for i in range(5)
    ] + [{"id": "bad", "text": "This one contains POISON and breaks the model."}])
    report = ingest_paths(pool, "t", [corpus], embedder=_FailingFor(embedder, "POISON"))
    assert (report.new, report.failed) == (5, 1)
    assert "embedding failed" in report.errors[0]
    assert "c.jsonl#bad" in report.errors[0]
    with pool.connection() as conn:
        keys = {r[0] for r in conn.execute("SELECT doc_key FROM documents")}
    assert keys == {f"d{i}" for i in range(5)}
    assert _counts(pool) == (5, 0, 5)


def test_ingest_documents_versions_like_files(pool: ConnectionPool, embedder: Embedder) -> None:
    doc = SourceDocument(doc_key="k", source="api", title="T", text="first text")
    assert ingest_documents(pool, "t", [doc], embedder=embedder).new == 1
    changed = SourceDocument(doc_key="k", source="api", title="T", text="second text")
    report = ingest_documents(pool, "t", [changed, doc], embedder=embedder)
    assert (report.updated, report.failed) == (1, 1)
    assert "duplicate document id" in report.errors[0]


def test_explicit_generation_writes_beside_the_active_one(
        pool: ConnectionPool, embedder: Embedder, docs_dir: Path) -> None:
    ingest_paths(pool, "t", [docs_dir], embedder=embedder)
    report = ingest_paths(pool, "t", [docs_dir], embedder=embedder, generation=2,
                          record_sources=False)
    assert (report.new, report.unchanged) == (2, 0)
    with pool.connection() as conn:
        per_gen = conn.execute("SELECT generation, count(*) FROM chunks GROUP BY 1 "
                               "ORDER BY 1").fetchall()
    assert per_gen[0][1] == per_gen[1][1]
    assert [g for g, _ in per_gen] == [1, 2]


def _errors(report: IngestReport) -> str:
    return "\n".join(report.errors)


def test_bad_inputs_each_get_one_error_naming_the_item_and_the_rest_proceeds(
        pool: ConnectionPool, embedder: Embedder, tmp_path: Path) -> None:
    root = tmp_path / "in"
    _write(root / "good.md", "# Good\n\nA perfectly fine document.\n")
    (root / "empty.txt").write_bytes(b"")
    (root / "blank.md").write_bytes(b"  \n\n ")
    (root / "binary.txt").write_bytes(b"PK\x03\x04\x00\x00binary")
    (root / "gbk.txt").write_bytes("中文文本".encode("gbk"))
    (root / "huge.txt").write_bytes(b"word " * 300_000)  # 1.4 MB
    os.symlink(root / "missing-target.md", root / "broken.md")
    os.mkfifo(root / "pipe.txt")
    (root / "bad.pdf").write_bytes(b"%PDF-1.4 this is not really a pdf")
    corpus = _corpus(root / "corpus.jsonl", [
        {"id": "ok1", "text": "first good line"},
        '{"id": "broken", "text": ',
        {"id": "no-text"},
        {"id": "ok2", "text": "second good line"},
    ])
    report = ingest_paths(pool, "t", [root, tmp_path / "nope.md"], embedder=embedder,
                          max_file_bytes=1024 * 1024)
    text = _errors(report)
    expected = {
        "empty.txt": "empty", "blank.md": "whitespace", "binary.txt": "binary",
        "gbk.txt": "not valid UTF-8", "huge.txt": "over the 1 MB limit",
        "broken.md": "broken symbolic link", "pipe.txt": "FIFO", "bad.pdf": "not a readable PDF",
        f"{corpus}:2": "not valid JSON", f"{corpus}:3": "has no \"text\"",
        "nope.md": "no such file",
    }
    for item, reason in expected.items():
        lines = [line for line in report.errors if item in line]
        assert len(lines) == 1, (item, text)
        assert reason in lines[0], (item, text)
    assert "--max-file-mb" in text
    assert "iconv" in text
    assert (report.new, report.failed) == (3, len(expected))
    assert len(report.errors) == len(expected)
    with pool.connection() as conn:
        keys = {r[0] for r in conn.execute("SELECT doc_key FROM documents")}
    assert keys == {"ok1", "ok2", str((root / "good.md").resolve())}


def test_file_that_turns_bad_is_reported_and_keeps_its_last_good_version_under_prune(
        pool: ConnectionPool, embedder: Embedder, docs_dir: Path) -> None:
    ingest_paths(pool, "t", [docs_dir], embedder=embedder)
    (docs_dir / "sub" / "vacation.txt").write_bytes(b"\xff\xfe broken \x00 bytes")
    report = ingest_paths(pool, "t", [docs_dir], embedder=embedder, prune=True)
    assert (report.failed, report.pruned, report.unchanged) == (1, 0, 1)
    assert "vacation.txt: binary content" in report.errors[0]
    assert _keyword_hits(pool, "vacation") == [str((docs_dir / "sub" / "vacation.txt").resolve())]


def test_progress_reports_every_document_against_the_planned_total(
        pool: ConnectionPool, embedder: Embedder, docs_dir: Path, tmp_path: Path) -> None:
    corpus = _corpus(tmp_path / "c.jsonl", [{"id": str(i), "text": f"text {i}"}
                                            for i in range(3)] + ["not json"])
    calls: list[tuple[int, int]] = []
    report = ingest_paths(pool, "t", [docs_dir, corpus], embedder=embedder,
                          on_progress=lambda done, total: calls.append((done, total)))
    assert (report.new, report.failed) == (5, 1)
    assert calls == [(i, 6) for i in range(1, 7)]


def test_html_and_docx_structure_reaches_chunk_heading_paths(
        pool: ConnectionPool, embedder: Embedder, tmp_path: Path) -> None:
    root = tmp_path / "mixed"
    _write(root / "page.html", "<title>VPN</title><h1>VPN</h1><h2>Setup</h2>"
           "<p>Install the client.</p>")
    document = docx.Document()
    document.add_heading("Travel", level=1)
    document.add_heading("Booking", level=2)
    document.add_paragraph("Book flights through the portal.")
    document.save(str(root / "travel.docx"))
    report = ingest_paths(pool, "t", [root], embedder=embedder)
    assert (report.new, report.failed) == (2, 0)
    with pool.connection() as conn:
        rows = conn.execute("SELECT d.title, c.heading_path, c.text FROM chunks c "
                            "JOIN documents d ON d.id = c.document_id ORDER BY 1").fetchall()
    assert rows == [("Travel", ["Travel", "Booking"], "Book flights through the portal."),
                    ("VPN", ["VPN", "Setup"], "Install the client.")]


def test_prune_covers_a_corpus_found_inside_an_ingested_folder(
        pool: ConnectionPool, embedder: Embedder, docs_dir: Path) -> None:
    corpus = _corpus(docs_dir / "faq.jsonl", [{"id": "q1", "text": "first answer"},
                                              {"id": "q2", "text": "second answer"}])
    assert ingest_paths(pool, "t", [docs_dir], embedder=embedder).new == 4
    _corpus(corpus, [{"id": "q2", "text": "second answer"}])
    report = ingest_paths(pool, "t", [docs_dir], embedder=embedder, prune=True)
    assert (report.pruned, report.unchanged) == (1, 3)
    assert _counts(pool)[:2] == (3, 1)


def test_document_whose_insert_fails_leaves_no_rows_and_others_commit(
        pool: ConnectionPool, embedder: Embedder) -> None:
    good = [SourceDocument(doc_key=f"g{i}", source="api", title=f"G{i}", text=f"good {i}")
            for i in range(3)]
    # PostgreSQL text cannot hold NUL: the chunk insert fails after the document row went in.
    bad = SourceDocument(doc_key="bad", source="api:bad", title="Bad", text="nul \x00 inside")
    report = ingest_documents(pool, "t", [good[0], bad, *good[1:]], embedder=embedder)
    assert (report.new, report.failed) == (3, 1)
    assert report.errors[0].startswith("api:bad: could not be stored")
    with pool.connection() as conn:
        keys = {r[0] for r in conn.execute("SELECT doc_key FROM documents")}
    assert keys == {"g0", "g1", "g2"}
    assert _counts(pool) == (3, 0, 3)


def test_concurrent_ingests_of_one_kb_serialize_without_duplicates(
        pool: ConnectionPool, embedder: Embedder, docs_dir: Path) -> None:
    with ThreadPoolExecutor(2) as workers:
        reports = list(workers.map(
            lambda _: ingest_paths(pool, "t", [docs_dir], embedder=embedder), range(2)))
    assert sorted((r.new, r.unchanged, r.failed) for r in reports) == [(0, 2, 0), (2, 0, 0)]
    assert _counts(pool)[:2] == (2, 0)


def test_prune_with_overlapping_paths_archives_only_what_vanished(
        pool: ConnectionPool, embedder: Embedder, docs_dir: Path) -> None:
    corpus = _corpus(docs_dir / "sub" / "faq.jsonl", [{"id": "q1", "text": "an answer"}])
    overlapping = [docs_dir, docs_dir / "sub", docs_dir, corpus]
    assert ingest_paths(pool, "t", overlapping, embedder=embedder).new == 3
    report = ingest_paths(pool, "t", overlapping, embedder=embedder, prune=True)
    assert (report.pruned, report.unchanged) == (0, 3)
    (docs_dir / "sub" / "vacation.txt").unlink()
    report = ingest_paths(pool, "t", overlapping, embedder=embedder, prune=True)
    assert (report.pruned, report.unchanged) == (1, 2)
    assert _counts(pool)[:2] == (2, 1)
