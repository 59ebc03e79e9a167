"""A folder's glossary.tsv becomes the KB's glossary at ingest (real Postgres)."""

from __future__ import annotations

from pathlib import Path

import pytest
from psycopg_pool import ConnectionPool

from store.embedder import Embedder
from store.glossary import GlossaryCache, read_glossary
from store.ingest import ingest_paths
from store.kb import get_kb

pytestmark = pytest.mark.db


def _glossary(pool: ConnectionPool, kb: str = "t") -> dict[str, tuple[str, ...]]:
    with pool.connection() as conn:
        return read_glossary(conn, get_kb(conn, kb).id)


@pytest.fixture
def pottery(tmp_path: Path) -> Path:
    (tmp_path / "kiln.md").write_text(
        "# Kiln rules\n\nThe kiln is fired on Thursdays; glaze tests go on the top shelf.\n",
        encoding="utf-8")
    (tmp_path / "glossary.tsv").write_text(
        "# studio words\n窑\tkiln\n釉\tglaze\n素烧\n", encoding="utf-8")
    return tmp_path


def test_ingesting_a_folder_stores_its_glossary_and_names_a_bad_line(
        pool: ConnectionPool, embedder: Embedder, pottery: Path) -> None:
    report = ingest_paths(pool, "t", [pottery], embedder=embedder)
    assert report.new == 1  # the glossary is not a document
    assert _glossary(pool) == {"窑": ("kiln",), "釉": ("glaze",)}
    assert len(report.errors) == 1
    assert "glossary.tsv:4: '素烧' has no synonym" in report.errors[0]


def test_a_line_removed_from_the_file_leaves_the_glossary_at_the_next_ingest(
        pool: ConnectionPool, embedder: Embedder, pottery: Path) -> None:
    ingest_paths(pool, "t", [pottery], embedder=embedder)
    (pottery / "glossary.tsv").write_text("窑\tkiln\tfurnace\n", encoding="utf-8")
    ingest_paths(pool, "t", [pottery], embedder=embedder)
    assert _glossary(pool) == {"窑": ("kiln", "furnace")}


def test_the_cache_reads_the_glossary_again_after_its_time(
        pool: ConnectionPool, embedder: Embedder, pottery: Path) -> None:
    ingest_paths(pool, "t", [pottery], embedder=embedder)
    cache = GlossaryCache(ttl_s=0.0)
    assert cache.get(pool, "t")["釉"] == ("glaze",)
    (pottery / "glossary.tsv").write_text("釉\tglaze\tslip\n", encoding="utf-8")
    ingest_paths(pool, "t", [pottery], embedder=embedder)
    assert cache.get(pool, "t")["釉"] == ("glaze", "slip")
