"""One ingest batch holding every kind of hostile file beside good ones, through the CLI and
the real database: each hostile file is one error line, the good files are committed, and no
row of a hostile file is written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.cli import main
from tests.hostile_files import (
    alias_bomb_markdown,
    blank_pdf,
    deep_html,
    docx_bytes,
    garbage,
    with_zero_member,
)

pytestmark = pytest.mark.db


def test_hostile_files_are_each_reported_and_the_good_ones_ingested(
        db_url: str, ragbot_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("DATABASE_URL", db_url)
    monkeypatch.setenv("RAGBOT_LOG_LEVEL", "WARNING")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "badges.md").write_text("# Badges\n\nVisitors wear a red badge at all times.\n",
                                    encoding="utf-8")
    (docs / "parking.txt").write_text("Parking permits renew every January.\n",
                                      encoding="utf-8")
    hostile = {
        "deep.html": (deep_html(), "256 levels deep"),
        "bomb.md": (alias_bomb_markdown(), "YAML aliases"),
        "bomb.docx": (with_zero_member(docx_bytes("Numbers."), "word/media/pad.bin",
                                       150 * 2**20), "over the 100 MB limit"),
        "pages.pdf": (blank_pdf(10_000), "over the 2000-page limit"),
        "dots.txt": (b"." * 2**20, "no words to index"),
        "noise.md": (garbage("noise.md"), "binary content"),
        "latin1.txt": ("Café crème".encode("latin-1"), "not valid UTF-8"),
    }
    for name, (data, _) in hostile.items():
        (docs / name).write_bytes(data)

    assert main(["ingest", str(docs), "--kb", "h", "--no-progress"]) == 1

    out = capsys.readouterr()
    errors = [line for line in out.err.splitlines() if line.startswith("error:")]
    for name, (_, reason) in hostile.items():
        lines = [e for e in errors if f"{name}: " in e]
        assert len(lines) == 1, (name, errors)
        assert reason in lines[0], (name, lines)
    assert len(errors) == len(hostile)
    assert "2 new, 0 updated, 0 unchanged, 7 failed" in out.out
    assert main(["kb", "status", "h", "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert (status["documents"], status["chunks"]) == (2, 2)  # nothing of the hostile files
