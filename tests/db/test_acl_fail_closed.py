"""Access lists fail closed: ingesting a broader folder, losing an acl from front matter, or a
reindex never widens a restricted document; only an explicit acl replaces it."""

from __future__ import annotations

from pathlib import Path

import pytest
from psycopg_pool import ConnectionPool

from store.embedder import Embedder
from store.ingest import ingest_paths
from store.reindex import reindex

pytestmark = pytest.mark.db

KB = "acl"


@pytest.fixture
def company(tmp_path: Path) -> Path:
    root = tmp_path / "company"
    (root / "hr").mkdir(parents=True)
    (root / "hr" / "salaries.md").write_text(
        "# Salary bands\n\nEngineering band E4 pays between 90k and 110k.\n", encoding="utf-8")
    (root / "lunch.md").write_text("# Lunch\n\nThe canteen opens at noon on weekdays.\n",
                                   encoding="utf-8")
    return root


def _acls(pool: ConnectionPool) -> dict[str, list[str]]:
    """Each latest document's (file name) access list in the active generation, and its
    chunks' (which search filters on) must agree."""
    with pool.connection() as conn:
        rows = conn.execute(
            "SELECT d.doc_key, d.acl, array_agg(DISTINCT c.acl) FROM documents d "
            "JOIN knowledge_bases k ON k.id = d.kb_id AND d.generation = k.active_generation "
            "JOIN chunks c ON c.document_id = d.id WHERE k.name = %s AND d.is_latest "
            "GROUP BY d.doc_key, d.acl", [KB]).fetchall()
    for key, acl, chunk_acls in rows:
        assert chunk_acls == [acl], key
    return {Path(r[0]).name: list(r[1]) for r in rows}


def test_ingesting_the_parent_folder_keeps_a_restricted_list_and_says_so(
        pool: ConnectionPool, embedder: Embedder, company: Path) -> None:
    ingest_paths(pool, KB, [company / "hr"], embedder=embedder, acl=["group:hr"])

    report = ingest_paths(pool, KB, [company], embedder=embedder)

    assert _acls(pool) == {"salaries.md": ["group:hr"], "lunch.md": ["public"]}
    assert (report.new, report.unchanged) == (1, 1)  # nothing rewritten for the kept list
    (note,) = report.notes
    assert "salaries.md: keeps its access list group:hr" in note
    assert "--acl" in note


def test_an_explicit_acl_replaces_a_restricted_list(
        pool: ConnectionPool, embedder: Embedder, company: Path) -> None:
    ingest_paths(pool, KB, [company / "hr"], embedder=embedder, acl=["group:hr"])

    report = ingest_paths(pool, KB, [company], embedder=embedder, acl=["group:hr", "user:U7"])

    assert _acls(pool)["salaries.md"] == ["group:hr", "user:U7"]
    assert report.notes == []
    ingest_paths(pool, KB, [company], embedder=embedder, acl=["public"])
    assert _acls(pool)["salaries.md"] == ["public"]  # explicit, so even widening is allowed


def test_front_matter_that_loses_its_acl_keeps_the_list_and_one_that_sets_it_replaces_it(
        pool: ConnectionPool, embedder: Embedder, company: Path) -> None:
    doc = company / "hr" / "salaries.md"
    body = doc.read_text(encoding="utf-8")
    doc.write_text("---\nacl: [user:U1]\n---\n" + body, encoding="utf-8")
    ingest_paths(pool, KB, [company], embedder=embedder)
    assert _acls(pool)["salaries.md"] == ["user:U1"]

    doc.write_text(body + "\nBands are reviewed every April.\n", encoding="utf-8")
    report = ingest_paths(pool, KB, [company], embedder=embedder)
    assert (report.updated, _acls(pool)["salaries.md"]) == (1, ["user:U1"])
    assert len(report.notes) == 1

    doc.write_text("---\nacl: [user:U2]\n---\n" + body, encoding="utf-8")
    ingest_paths(pool, KB, [company], embedder=embedder)
    assert _acls(pool)["salaries.md"] == ["user:U2"]


def test_a_corpus_line_without_metadata_acl_keeps_a_restricted_list(
        pool: ConnectionPool, embedder: Embedder, tmp_path: Path) -> None:
    corpus = tmp_path / "c.jsonl"
    corpus.write_text('{"id": "memo", "text": "The merger closes in May.", '
                      '"metadata": {"acl": ["group:board"]}}\n', encoding="utf-8")
    ingest_paths(pool, KB, [corpus], embedder=embedder)
    corpus.write_text('{"id": "memo", "text": "The merger closes in June."}\n',
                      encoding="utf-8")
    report = ingest_paths(pool, KB, [corpus], embedder=embedder)
    assert report.updated == 1
    assert _acls(pool) == {"memo": ["group:board"]}


def test_reindex_keeps_every_documents_current_access_list(
        pool: ConnectionPool, embedder: Embedder, company: Path) -> None:
    ingest_paths(pool, KB, [company], embedder=embedder, acl=["group:staff"])
    # The folder is ingested again without --acl: its recorded source now has no acl,
    # while the documents keep group:staff.
    ingest_paths(pool, KB, [company], embedder=embedder)
    before = _acls(pool)
    assert before == {"salaries.md": ["group:staff"], "lunch.md": ["group:staff"]}

    report = reindex(pool, KB, embedder=embedder)

    assert report.new_generation == 2
    assert _acls(pool) == before
