"""HTML, PDF and DOCX to Markdown-like text that keeps headings, tables and code blocks.

Each reader returns ``(title or None, text)``; the chunker then sees the same structure it
sees in Markdown files.
"""

from __future__ import annotations

import io
import re
from typing import Any

from store.limits import (
    DEFAULT_MAX_PDF_PAGES,
    check_html_depth,
    check_html_size,
    check_pdf_pages,
    check_zip,
)

_SPACES = re.compile(r"[ \t\r\f\v]+")


def _cell(text: str) -> str:
    return _SPACES.sub(" ", text.replace("\n", " ")).replace("|", "\\|").strip()


def markdown_table(rows: list[list[str]]) -> str:
    """A pipe table; the first row is the header."""
    rows = [r for r in rows if any(c.strip() for c in r)]
    if not rows:
        return ""
    width = max(len(r) for r in rows)
    rows = [[_cell(c) for c in r] + [""] * (width - len(r)) for r in rows]
    lines = ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * width]
    lines += ["| " + " | ".join(r) + " |" for r in rows[1:]]
    return "\n".join(lines)


# ---------------------------------------------------------------- HTML

_SKIP = {"script", "style", "noscript", "template", "head", "nav", "footer", "svg"}
# Text a reader of the page never sees must not be indexed (nor answered from).
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.I)
_BLOCKS = {"p", "div", "section", "article", "main", "blockquote", "li", "dd", "dt",
           "figcaption", "address", "header", "aside", "form", "details", "summary"}
_STRUCTURE = ["h1", "h2", "h3", "h4", "h5", "h6", "table", "pre", "ul", "ol", "p", "div"]


def read_html(markup: str) -> tuple[str | None, str]:
    """Title and Markdown-like text of an HTML page; InputLimitError for a hostile one."""
    from bs4 import BeautifulSoup

    check_html_size(markup)
    soup = BeautifulSoup(markup, "html.parser")
    check_html_depth(soup)  # the walk below recurses once per level
    title_tag = soup.find("title")
    title = title_tag.get_text(" ", strip=True) if title_tag else None
    if title_tag:
        title_tag.decompose()  # without <head>, the title would read as body text
    _drop_unseen(soup)
    root = soup.body or soup
    blocks: list[str] = []
    _html_blocks(root, blocks)
    text = "\n\n".join(b for b in blocks if b.strip())
    if not title:
        h1 = soup.find("h1")
        title = h1.get_text(" ", strip=True) if h1 else None
    return title or None, text


def html_meta(markup: str) -> dict[str, str]:
    """Front-matter-like fields a page declares: ``<meta name="doc_type" content="...">``."""
    from bs4 import BeautifulSoup
    from bs4.filter import SoupStrainer

    found: dict[str, str] = {}
    for tag in BeautifulSoup(markup, "html.parser", parse_only=SoupStrainer("meta")
                             ).find_all("meta"):
        name, content = str(tag.get("name") or "").strip().lower(), tag.get("content")
        if name == "doc_type" and isinstance(content, str) and content.strip():
            found.setdefault(name, content.strip())
    return found


def _drop_unseen(soup: Any) -> None:
    """Remove comments, declarations and hidden elements (``hidden``, ``aria-hidden``,
    ``display:none``, scripts, styles, templates) with everything inside them."""
    from bs4.element import Comment, Declaration, Doctype, ProcessingInstruction

    for node in soup.find_all(string=lambda s: isinstance(
            s, Comment | Declaration | Doctype | ProcessingInstruction)):
        node.extract()
    for tag in soup.find_all(_unseen):
        tag.decompose()


def _unseen(tag: Any) -> bool:
    return (tag.name in _SKIP or tag.has_attr("hidden")
            or str(tag.get("aria-hidden", "")).lower() == "true"
            or bool(_HIDDEN_STYLE.search(str(tag.get("style", "")))))


def _inline(node: Any) -> str:
    return _SPACES.sub(" ", node.get_text(" ")).strip()


def _html_special(node: Any, name: str) -> str | None:
    """Markdown for headings, code, tables and lists; None for other elements."""
    if re.fullmatch(r"h[1-6]", name):
        heading = _inline(node)
        return "#" * int(name[1]) + " " + heading if heading else ""
    if name == "pre":
        inner = node.find("code")
        classes = (inner.get("class") or []) if inner is not None else []
        lang = next((c.split("-", 1)[1] for c in classes
                     if c.startswith(("language-", "lang-"))), "")
        return f"```{lang}\n{node.get_text().strip(chr(10))}\n```"
    if name == "table":
        return markdown_table([[_inline(cell) for cell in tr.find_all(["th", "td"])]
                               for tr in node.find_all("tr")])
    if name in ("ul", "ol"):
        items = [i for i in (_inline(li) for li in node.find_all("li", recursive=False)) if i]
        # An ordered list's numbers are quoted with its steps ("1." "2." …, from ``start``).
        first = int(node["start"]) if name == "ol" and str(node.get("start", "")).isdigit() else 1
        return "\n".join(f"{first + k}. {i}" if name == "ol" else f"- {i}"
                         for k, i in enumerate(items))
    return None


def _html_blocks(node: Any, out: list[str]) -> None:
    from bs4.element import NavigableString, Tag

    buffer: list[str] = []

    def flush() -> None:
        text = _SPACES.sub(" ", "".join(buffer)).strip()
        if text:
            out.append(text)
        buffer.clear()

    for child in node.children:
        if isinstance(child, NavigableString):
            buffer.append(str(child))
            continue
        if not isinstance(child, Tag):
            continue
        name = child.name.lower()
        special = _html_special(child, name)
        if special is not None:
            flush()
            if special:
                out.append(special)
        elif name == "br":
            buffer.append("\n")
        elif name in _BLOCKS or child.find(_STRUCTURE):
            flush()
            _html_blocks(child, out)
        else:
            buffer.append(child.get_text(" "))
    flush()


class _DocxNumbering:
    """List markers of a .docx's paragraphs: "1. ", "2. " … for a numbered list (Word's
    automatic numbering, which python-docx's text leaves out), "- " for a bullet, two spaces
    a level deeper; ``None`` for a paragraph that is not a list item."""

    def __init__(self, document: Any) -> None:
        try:
            self._numbering = document.part.numbering_part.element
        # python-docx raises these for a document without a numbering part (no list ever
        # numbered by Word): its lists, if any, are read by their style names alone.
        except (KeyError, NotImplementedError):
            self._numbering = None
        self._formats: dict[tuple[str, str], str | None] = {}
        self._counts: dict[str, list[int]] = {}

    def marker(self, paragraph: Any) -> str | None:
        num_id, level = self._num_pr(paragraph)
        style = (paragraph.style.name if paragraph.style is not None else "") or ""
        if num_id is None:
            return "- " if style.startswith("List") else None
        depth = int(level) if level.isdigit() and int(level) < 9 else 0
        fmt = self._format(num_id, str(depth))
        numbered = fmt not in ("bullet", "none") if fmt is not None else "Number" in style
        if not numbered:
            return "  " * depth + "- "
        counts = self._counts.setdefault(num_id, [0] * 9)
        counts[depth] += 1
        counts[depth + 1:] = [0] * (8 - depth)  # a deeper list restarts under each item
        return "  " * depth + f"{counts[depth]}. "

    @staticmethod
    def _num_pr(paragraph: Any) -> tuple[str | None, str]:
        """The paragraph's numbering id and level, its own or its style's."""
        for holder in (paragraph._p, getattr(paragraph.style, "element", None)):
            ppr = getattr(holder, "pPr", None)
            num_pr = getattr(ppr, "numPr", None)
            if num_pr is not None and num_pr.numId is not None:
                num_id = str(num_pr.numId.val)
                level = str(num_pr.ilvl.val) if num_pr.ilvl is not None else "0"
                # numId 0 switches numbering off.
                return (num_id if num_id.isdigit() and num_id != "0" else None), level
        return None, "0"

    def _format(self, num_id: str, level: str) -> str | None:
        key = (num_id, level)
        if key not in self._formats:
            fmt = None
            if self._numbering is not None:
                abstract = self._numbering.xpath(
                    f'./w:num[@w:numId="{num_id}"]/w:abstractNumId/@w:val')
                if abstract and str(abstract[0]).isdigit():
                    found = self._numbering.xpath(
                        f'./w:abstractNum[@w:abstractNumId="{abstract[0]}"]'
                        f'/w:lvl[@w:ilvl="{level}"]/w:numFmt/@w:val')
                    fmt = str(found[0]) if found else None
            self._formats[key] = fmt
        return self._formats[key]


# ---------------------------------------------------------------- PDF


def read_pdf(data: bytes, max_pages: int = DEFAULT_MAX_PDF_PAGES) -> tuple[str | None, str]:
    """Title (document info) and text of a PDF, pages separated by blank lines.

    A PDF over ``max_pages`` raises InputLimitError before any page's text is extracted.
    """
    from pypdf import PdfReader

    reader = PdfReader(io.BytesIO(data))
    if reader.is_encrypted:
        raise ValueError("the PDF is encrypted; save an unencrypted copy")
    check_pdf_pages(len(reader.pages), max_pages)
    pages = [(page.extract_text() or "").strip() for page in reader.pages]
    title = None
    if reader.metadata is not None and reader.metadata.title:
        title = str(reader.metadata.title).strip() or None
    return title, "\n\n".join(p for p in pages if p)


# ---------------------------------------------------------------- DOCX


def read_docx(data: bytes) -> tuple[str | None, str]:
    """Title and Markdown-like text of a .docx: headings by style, tables as pipe tables.

    The zip directory is checked first (InputLimitError for a zip bomb): python-docx
    unpacks every part into memory.
    """
    import docx
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    check_zip(data, "DOCX")
    document = docx.Document(io.BytesIO(data))
    title = (document.core_properties.title or "").strip() or None
    blocks: list[str] = []
    numbering = _DocxNumbering(document)
    for item in document.iter_inner_content():
        if isinstance(item, Table):
            rows = [[cell.text for cell in row.cells] for row in item.rows]
            table = markdown_table(rows)
            if table:
                blocks.append(table)
            continue
        if not isinstance(item, Paragraph):
            continue
        text = item.text.strip()
        if not text:
            continue
        style = (item.style.name if item.style is not None else "") or ""
        level = re.fullmatch(r"Heading (\d)", style)
        if style == "Title":
            title = title or text
            blocks.append("# " + text)
        elif level:
            blocks.append("#" * min(int(level.group(1)), 6) + " " + text)
        elif (marker := numbering.marker(item)) is not None:
            blocks.append(marker + text)
        else:
            blocks.append(text)
    if title is None:
        title = next((b.lstrip("# ") for b in blocks if b.startswith("#")), None)
    return title, "\n\n".join(blocks)
