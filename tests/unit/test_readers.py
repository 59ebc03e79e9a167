"""Readers: formats, front matter, corpus lines, folder planning and per-item failures."""

from __future__ import annotations

import io
import json
from pathlib import Path

import docx
import pytest
from fpdf import FPDF

from store.readers import ReadFailure, normalize_acl, plan, read_plan
from store.types import SourceDocument


def _read(*paths: Path, **kwargs: object) -> list[SourceDocument | ReadFailure]:
    return list(read_plan(plan(list(paths)), **kwargs))  # type: ignore[arg-type]


def _one(path: Path, **kwargs: object) -> SourceDocument:
    (doc,) = _read(path, **kwargs)
    assert isinstance(doc, SourceDocument), doc
    return doc


def test_markdown_front_matter_sets_title_doc_type_acl_and_metadata(tmp_path: Path) -> None:
    path = tmp_path / "faq.md"
    path.write_text("---\ntitle: 报销 FAQ\ndoc_type: faq\nacl: user:U1\nowner: finance\n---\n"
                    "# Heading\n\nBody.\n", encoding="utf-8")
    doc = _one(path, doc_type="other", acl=["group:G"])
    assert (doc.title, doc.doc_type, doc.acl, doc.fmt) == ("报销 FAQ", "faq", ("user:U1",),
                                                           "markdown")
    assert doc.doc_key == doc.source == str(path.resolve())
    assert doc.metadata["owner"] == "finance"
    assert doc.text.startswith("# Heading")


def test_markdown_without_front_matter_uses_first_heading_and_cli_defaults(
        tmp_path: Path) -> None:
    path = tmp_path / "guide.md"
    path.write_bytes("\ufeffintro\n\n## Setup Guide\n\ntext\n".encode())
    doc = _one(path, doc_type="howto", acl=["group:G"])
    assert (doc.title, doc.doc_type, doc.acl) == ("Setup Guide", "howto", ("group:G",))
    assert doc.text.startswith("intro")  # the BOM is gone


def test_text_file_title_is_the_stem_and_default_is_public(tmp_path: Path) -> None:
    doc = _one(tmp_path / "notes.txt") if (tmp_path / "notes.txt").write_text("hi") else None
    assert doc is not None
    assert (doc.title, doc.acl, doc.doc_type) == ("notes", ("public",),
                                                                      "document")


def test_broken_front_matter_is_one_failure_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "bad.md"
    path.write_text("---\ntitle: [unclosed\n---\nbody\n", encoding="utf-8")
    (failure,) = _read(path)
    assert isinstance(failure, ReadFailure)
    assert "bad.md: front matter is not valid YAML" in failure.message()


def test_html_keeps_headings_tables_and_code(tmp_path: Path) -> None:
    path = tmp_path / "page.html"
    path.write_text(
        "<html><head><title>Deploy</title><style>p{}</style></head><body>"
        "<h1>Deploy</h1><p>Run the <b>pipeline</b>.</p><h2>Hosts</h2>"
        "<table><tr><th>host</th><th>role</th></tr><tr><td>a|1</td><td>db</td></tr></table>"
        "<pre><code class='language-bash'>make deploy\nmake verify</code></pre>"
        "<ul><li>one</li><li>two</li></ul><script>alert(1)</script></body></html>",
        encoding="utf-8")
    doc = _one(path)
    assert doc.title == "Deploy"
    assert doc.fmt == "markdown"
    assert doc.text.split("\n\n") == [
        "# Deploy", "Run the pipeline.", "## Hosts",
        "| host | role |\n|---|---|\n| a\\|1 | db |",
        "```bash\nmake deploy\nmake verify\n```", "- one\n- two"]


def test_docx_headings_by_style_and_tables_as_markdown(tmp_path: Path) -> None:
    document = docx.Document()
    document.add_heading("Leave Policy", level=0)
    document.add_heading("Annual leave", level=1)
    document.add_paragraph("Employees get 25 days.")
    table = document.add_table(rows=2, cols=2)
    for r, values in enumerate([("type", "days"), ("annual", "25")]):
        for c, value in enumerate(values):
            table.cell(r, c).text = value
    buffer = io.BytesIO()
    document.save(buffer)
    path = tmp_path / "leave.docx"
    path.write_bytes(buffer.getvalue())
    doc = _one(path)
    assert doc.title == "Leave Policy"
    assert doc.text.split("\n\n") == ["# Leave Policy", "# Annual leave",
                                      "Employees get 25 days.",
                                      "| type | days |\n|---|---|\n| annual | 25 |"]


def test_pdf_text_and_title_are_extracted(tmp_path: Path) -> None:
    pdf = FPDF()
    pdf.set_title("Security Handbook")
    pdf.add_page()
    pdf.set_font("Helvetica", size=12)
    pdf.cell(text="Rotate credentials every ninety days.")
    path = tmp_path / "sec.pdf"
    pdf.output(str(path))
    doc = _one(path)
    assert doc.title == "Security Handbook"
    assert "Rotate credentials every ninety days." in doc.text


def test_corpus_lines_become_documents_and_bad_lines_name_file_and_line(
        tmp_path: Path) -> None:
    path = tmp_path / "corpus.jsonl"
    lines = [
        json.dumps({"id": 7, "text": "numeric id", "metadata": {"acl": ["group:G"]}}),
        "",
        "[1, 2]",
        json.dumps({"id": "x", "text": "t", "metadata": {"acl": ["admins"]}}),
        json.dumps({"id": "y", "title": "Why", "text": "fine",
                    "metadata": {"doc_type": "wiki", "source": "wiki/y"}}),
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    items = _read(path, doc_type="dflt")
    docs = [i for i in items if isinstance(i, SourceDocument)]
    failures = [i.message() for i in items if isinstance(i, ReadFailure)]
    assert [(d.doc_key, d.title, d.doc_type, d.acl, d.source) for d in docs] == [
        ("7", "7", "dflt", ("group:G",), f"{path.resolve()}#7"),
        ("y", "Why", "wiki", ("public",), "wiki/y")]
    assert failures == [
        f"{path}:3: not a JSON object (write {{\"id\": ..., \"text\": ...}})",
        f"{path}:4: invalid acl entry 'admins' (use public, user:ID, channel:ID or group:ID) "
        "(fix metadata.acl)"]


def test_plan_walks_folders_skipping_hidden_and_unsupported_files_once(tmp_path: Path) -> None:
    (tmp_path / "a" / ".git").mkdir(parents=True)
    (tmp_path / "a" / ".git" / "x.md").write_text("hidden")
    (tmp_path / "a" / "keep.md").write_text("keep")
    (tmp_path / "a" / "image.png").write_bytes(b"\x89PNG")
    (tmp_path / "a" / ".draft.md").write_text("hidden")
    result = plan([tmp_path / "a", tmp_path / "a" / "keep.md", tmp_path / "missing"])
    assert [e.path.name for e in result.entries] == ["keep.md"]
    assert [f.message() for f in result.failures] == [
        f"{tmp_path / 'missing'}: no such file or folder (check the path)"]
    assert [s.kind for s in result.scopes] == ["folder"]


def test_explicit_file_with_unsupported_type_is_a_failure(tmp_path: Path) -> None:
    path = tmp_path / "data.csv"
    path.write_text("a,b")
    (failure,) = _read(path)
    assert isinstance(failure, ReadFailure)
    assert "unsupported file type .csv" in failure.reason


@pytest.mark.parametrize(("value", "expected"), [
    (None, ("public",)), ("user:U1", ("user:U1",)),
    (["group:G", "group:G", "channel:C"], ("group:G", "channel:C")), ([], ("public",)),
])
def test_normalize_acl(value: object, expected: tuple[str, ...]) -> None:
    assert normalize_acl(value, "item") == expected


@pytest.mark.parametrize("bad", ["everyone", "user:", ["public", "role:x"], {"a": 1}])
def test_normalize_acl_rejects_unknown_principals(bad: object) -> None:
    with pytest.raises((ValueError, TypeError), match="item: "):
        normalize_acl(bad, "item")


def test_html_meta_doc_type_and_title_name_the_document(tmp_path: Path) -> None:
    path = tmp_path / "canteen.html"
    path.write_text(
        "<!doctype html><html><head><meta charset='utf-8'><title>Canteen hours</title>"
        "<meta name=\"doc_type\" content=\"faq\"></head><body><h1>Food</h1>"
        "<p>The canteen opens at 11:30.</p></body></html>", encoding="utf-8")
    doc = _one(path, doc_type="document")
    assert doc.title == "Canteen hours"
    assert doc.doc_type == "faq"  # the page's own type wins over --doc-type
    assert "Canteen hours" not in doc.text


@pytest.mark.parametrize(("text", "encoding", "expected"), [
    ("值班表：夜间告警由二线工程师处理，周末轮换。", "gbk", "GBK"),
    ("Le café ouvre à 8 h ; réunion prévue jeudi.", "latin-1", "LATIN1"),
    ("Die Grüße kommen später; Straße gesperrt.", "latin-1", "LATIN1"),
])
def test_undecodable_file_names_its_likely_encoding(
        tmp_path: Path, text: str, encoding: str, expected: str) -> None:
    path = tmp_path / "legacy.txt"
    path.write_bytes(text.encode(encoding))
    (failure,) = _read(path)
    assert isinstance(failure, ReadFailure)
    assert f"it looks like {expected}" in failure.message()
    assert f"iconv -f {expected} -t UTF-8" in failure.message()
    # the named encoding is the one that reads the file back as written
    assert path.read_bytes().decode(expected.lower()) == text


def test_html_comments_and_hidden_elements_are_not_indexed(tmp_path: Path) -> None:
    path = tmp_path / "page.html"
    path.write_text(
        "<!DOCTYPE html><html><head><title>Office</title><style>.a{}</style></head><body>"
        "<!-- draft: the office closes in 2027 -->"
        "<h1>Office hours</h1><p>Open 8 to 6.<!-- not 7 --></p>"
        "<div hidden><p>Hidden attribute: rent is 40k</p></div>"
        "<p style='color: red; DISPLAY : none'>Styled away: landlord dispute</p>"
        "<section style='visibility:hidden'><p>Invisible: lease ends</p></section>"
        "<span aria-hidden='true'>Screen readers skip: move to Berlin</span>"
        "<template><p>Template: new floor plan</p></template>"
        "<script>var note = 'script: budget cut';</script>"
        "<p>Visitors sign in at reception.</p></body></html>", encoding="utf-8")
    doc = _one(path)
    assert doc.text == "# Office hours\n\nOpen 8 to 6.\n\nVisitors sign in at reception."
