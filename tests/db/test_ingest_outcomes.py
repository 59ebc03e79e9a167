"""What an ingest leaves behind when items fail or vanish: no empty KB, no failed source,
and a hint for files that are gone but still answerable."""

from __future__ import annotations

from pathlib import Path

import pytest
from psycopg_pool import ConnectionPool

from store.embedder import Embedder
from store.ingest import ingest_paths
from store.kb import find_kb, kb_status

pytestmark = pytest.mark.db


def _write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def test_a_run_that_ingests_nothing_creates_no_kb(
        pool: ConnectionPool, embedder: Embedder, tmp_path: Path) -> None:
    legacy = _write(tmp_path / "menu.txt", "Menü: Käse und Brötchen".encode("latin-1"))
    report = ingest_paths(pool, "lunch", [legacy], embedder=embedder)
    assert report.failed == 1
    with pool.connection() as conn:
        assert find_kb(conn, "lunch") is None


def test_a_failed_file_is_not_recorded_as_a_source(
        pool: ConnectionPool, embedder: Embedder, tmp_path: Path) -> None:
    good = _write(tmp_path / "parking.md", "# Parking\n\nBikes go in the basement rack.\n")
    bad = _write(tmp_path / "badge.txt", "Ausweis für Gäste".encode("latin-1"))
    report = ingest_paths(pool, "site", [good, bad], embedder=embedder)
    assert (report.new, report.failed) == (1, 1)
    with pool.connection() as conn:
        sources = [s["path"] for s in kb_status(conn, "site")["sources"]]
    assert sources == [str(good.resolve())]


def test_ingest_without_prune_says_how_many_recorded_files_are_gone(
        pool: ConnectionPool, embedder: Embedder, tmp_path: Path) -> None:
    folder = tmp_path / "handbook"
    _write(folder / "desk.md", "# Desks\n\nHot desks are booked a day ahead.\n")
    _write(folder / "locker.md", "# Lockers\n\nLockers are emptied every Friday.\n")
    _write(folder / "keys.md", "# Keys\n\nSpare keys sit with reception.\n")
    ingest_paths(pool, "office", [folder], embedder=embedder)
    (folder / "locker.md").unlink()
    (folder / "keys.md").unlink()
    report = ingest_paths(pool, "office", [folder], embedder=embedder)
    assert report.pruned == 0
    (notice,) = report.notices
    assert f"{folder.resolve()}: 2 recorded files are gone" in notice
    assert "--prune" in notice
    pruned = ingest_paths(pool, "office", [folder], embedder=embedder, prune=True)
    assert (pruned.pruned, pruned.notices) == (2, [])
    assert ingest_paths(pool, "office", [folder], embedder=embedder).notices == []
