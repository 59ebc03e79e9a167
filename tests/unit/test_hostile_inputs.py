"""Hostile files, each generated here: every one is that file's failure, named with the fix,
refused before it costs time or memory, and the good file read beside it still comes out."""

from __future__ import annotations

import re
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import pytest
from fpdf import FPDF

from store.chunking import chunk_text
from store.limits import MAX_UNZIPPED_BYTES, ReadLimits
from store.readers import ReadFailure, plan, read_plan
from store.types import SourceDocument
from tests.hostile_files import (
    alias_bomb_markdown,
    blank_pdf,
    deep_html,
    docx_bytes,
    garbage,
    with_zero_member,
)

GOOD = "# Badge policy\n\nVisitors wear a red badge and are escorted at all times.\n"


def _read_beside_good(tmp_path: Path, name: str, data: bytes, *, measure: bool = False
                      ) -> tuple[ReadFailure, float, int]:
    """Read the hostile file and a good one in one batch: (the failure, seconds, and with
    ``measure`` the peak bytes Python allocated while reading)."""
    (tmp_path / "good.md").write_text(GOOD, encoding="utf-8")
    (tmp_path / name).write_bytes(data)
    if measure:
        tracemalloc.start()
    started = time.perf_counter()
    try:
        items = list(read_plan(plan([tmp_path])))
        seconds = time.perf_counter() - started
        peak = tracemalloc.get_traced_memory()[1] if measure else 0
    finally:
        tracemalloc.stop()
    docs = [i for i in items if isinstance(i, SourceDocument)]
    failures = [i for i in items if isinstance(i, ReadFailure)]
    assert [d.title for d in docs] == ["Badge policy"], items
    assert len(failures) == 1, failures
    assert failures[0].item == str(tmp_path / name)
    assert failures[0].fix, failures[0]
    return failures[0], seconds, peak


def test_html_nested_five_thousand_levels_is_refused_by_depth(tmp_path: Path) -> None:
    failure, seconds, _ = _read_beside_good(tmp_path, "deep.html", deep_html(5_000))
    assert "256 levels deep" in failure.reason
    assert "markup" in failure.fix
    assert seconds < 10


def test_html_with_more_elements_than_a_page_is_refused_before_parsing(tmp_path: Path) -> None:
    markup = "<p>x</p>" * 300_000  # flat, 2.4 MB: a tree of 300k elements would be ~150 MB
    failure, _, peak = _read_beside_good(tmp_path, "wide.html", markup.encode(), measure=True)
    assert "300000 elements" in failure.reason
    assert peak < 40 * 2**20


def test_yaml_alias_bomb_in_front_matter_is_refused_before_expansion(tmp_path: Path) -> None:
    failure, seconds, peak = _read_beside_good(tmp_path, "bomb.md", alias_bomb_markdown(),
                                               measure=True)
    assert "over 8 YAML aliases" in failure.reason
    assert seconds < 5
    assert peak < 20 * 2**20


def test_a_few_yaml_aliases_are_still_read(tmp_path: Path) -> None:
    text = ("---\nowners: &o [ana, li]\nreviewers: *o\n---\n# Rota\n\nAna and Li review.\n")
    (tmp_path / "rota.md").write_text(text, encoding="utf-8")
    (doc,) = read_plan(plan([tmp_path / "rota.md"]))
    assert isinstance(doc, SourceDocument)
    assert doc.metadata["reviewers"] == ["ana", "li"]


def test_deeply_nested_front_matter_is_refused(tmp_path: Path) -> None:
    text = "---\nx: " + "[" * 5000 + "]" * 5000 + "\n---\nBody text.\n"
    failure, _, _ = _read_beside_good(tmp_path, "nested.md", text.encode())
    assert "levels deep" in failure.reason


def test_docx_zip_bomb_is_refused_from_the_zip_directory_without_unpacking(
        tmp_path: Path) -> None:
    bomb = with_zero_member(docx_bytes("Quarterly numbers."), "word/media/pad.bin",
                        MAX_UNZIPPED_BYTES + 50 * 2**20)
    assert len(bomb) < 2 * 2**20  # 150 MB of zeros packs into a few hundred KB
    failure, _, peak = _read_beside_good(tmp_path, "bomb.docx", bomb, measure=True)
    assert re.search(r"unpacks to 15\d MB, over the 100 MB limit", failure.reason)
    assert peak < 3 * len(bomb) + 10 * 2**20  # the file itself, never its contents


def test_docx_part_compressed_past_the_ratio_limit_is_refused(tmp_path: Path) -> None:
    bomb = with_zero_member(docx_bytes("Quarterly numbers."), "word/media/pad.bin", 30 * 2**20)
    failure, _, peak = _read_beside_good(tmp_path, "dense.docx", bomb, measure=True)
    assert "'word/media/pad.bin' is compressed" in failure.reason
    assert peak < 20 * 2**20


def test_pdf_of_ten_thousand_pages_is_refused_before_extraction(tmp_path: Path) -> None:
    failure, seconds, _ = _read_beside_good(tmp_path, "huge.pdf", blank_pdf(10_000))
    assert "10000 pages, over the 2000-page limit" in failure.reason
    assert "RAGBOT_MAX_PDF_PAGES" in failure.fix
    assert seconds < 20


def test_pdf_page_limit_is_a_setting(tmp_path: Path) -> None:
    pdf = FPDF()
    pdf.set_font("Helvetica", size=12)
    for number in range(3):
        pdf.add_page()
        pdf.cell(text=f"Page {number} of the fire drill plan.")
    path = tmp_path / "drill.pdf"
    pdf.output(str(path))
    (refused,) = read_plan(plan([path]), limits=ReadLimits(max_pdf_pages=2))
    assert isinstance(refused, ReadFailure)
    assert "3 pages, over the 2-page limit" in refused.reason
    (doc,) = read_plan(plan([path]), limits=ReadLimits(max_pdf_pages=3))
    assert isinstance(doc, SourceDocument)


def test_a_megabyte_of_dots_is_reported_as_having_no_words(tmp_path: Path) -> None:
    failure, seconds, _ = _read_beside_good(tmp_path, "dots.txt", b"." * 2**20)
    assert "no words to index" in failure.reason
    assert seconds < 5


@pytest.mark.parametrize("name", ["noise.md", "noise.html", "noise.pdf", "noise.docx",
                                  "noise.txt"])
def test_binary_garbage_is_reported_whatever_its_suffix(tmp_path: Path, name: str) -> None:
    failure, _, _ = _read_beside_good(tmp_path, name, garbage(name))
    assert failure.reason


def test_an_unexpected_parser_error_is_that_files_failure(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Any exception from a parser (here one the readers never anticipated) is contained.
    import store.file_reader

    def broken(_: str) -> tuple[str | None, str]:
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(store.file_reader, "read_html", broken)
    failure, _, _ = _read_beside_good(tmp_path, "odd.html", b"<p>fine looking</p>")
    assert failure.reason.startswith("could not be read (RecursionError")


WRONG_ENCODINGS: list[tuple[str, Callable[[str], bytes]]] = [
    ("latin1.md", lambda t: t.encode("latin-1")),
    ("utf16.txt", lambda t: t.encode("utf-16")),
]


@pytest.mark.parametrize(("name", "encode"), WRONG_ENCODINGS)
def test_text_in_another_encoding_names_the_fix(tmp_path: Path, name: str,
                                                encode: Callable[[str], bytes]) -> None:
    failure, _, _ = _read_beside_good(tmp_path, name, encode("Café crème: à volonté."))
    assert "UTF-8" in failure.reason or "binary" in failure.reason
    assert "UTF-8" in failure.fix or "convert" in failure.fix


@pytest.mark.parametrize("line", ["Badge" + "." * 2**20 + "end",
                                  "Badge " + ". " * 2**19 + "end",
                                  ("word" * 8 + " ") * (2**20 // 33)],
                         ids=["dots", "spaced dots", "one long line of words"])
def test_a_megabyte_on_one_line_is_read_and_chunked_in_linear_time(tmp_path: Path,
                                                                   line: str) -> None:
    path = tmp_path / "line.txt"
    path.write_text(line, encoding="utf-8")
    started = time.perf_counter()
    (doc,) = read_plan(plan([path]))
    assert isinstance(doc, SourceDocument)
    drafts = chunk_text(doc.text, doc.fmt)
    assert drafts
    assert time.perf_counter() - started < 20  # a quadratic rule takes hours on a megabyte
