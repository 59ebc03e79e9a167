"""Limits on what reading one input file may cost, checked before the expensive step.

A hostile or broken file (a zip bomb, a YAML alias bomb, HTML nested a million levels deep,
a PDF with ten thousand pages) must cost one failure line, not the worker's memory or the
whole ingest. Each check raises :class:`InputLimitError` with the reason and the fix; the
reader turns it into that file's failure.
"""

from __future__ import annotations

import io
import re
import zipfile
from dataclasses import dataclass
from typing import Any

import yaml

DEFAULT_MAX_FILE_BYTES = 20 * 1024 * 1024
DEFAULT_MAX_PDF_PAGES = 2000
# A .docx is a zip: its parts are read whole into memory, so their declared sizes (from the
# zip directory, which zipfile never lets a member exceed) are checked before any is read.
MAX_UNZIPPED_BYTES = 100 * 1024 * 1024
MAX_ZIP_RATIO = 100  # text XML compresses ~10x; a member at 100x+ is a bomb, not a document
MAX_ZIP_MEMBERS = 10_000
# HTML: the parsed tree costs ~0.5 KB per element, and the walk follows its nesting.
MAX_HTML_ELEMENTS = 100_000
MAX_HTML_DEPTH = 256
# YAML front matter: a few aliases are legitimate; nine nested ones expand to a billion.
MAX_FRONT_MATTER_BYTES = 64 * 1024
MAX_YAML_ALIASES = 8
MAX_YAML_DEPTH = 32

_OPEN_TAG = re.compile(r"<[A-Za-z]")


class InputLimitError(ValueError):
    """One file exceeds a reading limit; ``reason`` and ``fix`` are shown to the user."""

    def __init__(self, reason: str, fix: str) -> None:
        super().__init__(reason)
        self.reason, self.fix = reason, fix


@dataclass(frozen=True)
class ReadLimits:
    """The limits that are settings (the rest are constants above)."""

    max_file_bytes: int | None = DEFAULT_MAX_FILE_BYTES
    max_pdf_pages: int = DEFAULT_MAX_PDF_PAGES


def check_zip(data: bytes, kind: str) -> None:
    """Refuse a zip whose directory promises too many members, bytes or compression."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        members = archive.infolist()
    if len(members) > MAX_ZIP_MEMBERS:
        raise InputLimitError(f"{kind} holds {len(members)} parts, over the "
                              f"{MAX_ZIP_MEMBERS} limit", f"re-save it as {kind}")
    total = sum(m.file_size for m in members)
    if total > MAX_UNZIPPED_BYTES:
        raise InputLimitError(
            f"{kind} unpacks to {total / 2**20:.0f} MB, over the "
            f"{MAX_UNZIPPED_BYTES / 2**20:.0f} MB limit (a zip bomb?)",
            "remove large embedded files or split the document")
    for member in members:
        ratio = member.file_size / max(member.compress_size, 1)
        if member.file_size > 1024 * 1024 and ratio > MAX_ZIP_RATIO:
            raise InputLimitError(
                f"{kind} part {member.filename!r} is compressed {ratio:.0f}:1, over the "
                f"{MAX_ZIP_RATIO}:1 limit (a zip bomb?)", f"re-save it as {kind}")


def check_pdf_pages(pages: int, limit: int) -> None:
    """Refuse a PDF with more pages than ``limit`` before any page is extracted."""
    if pages > limit:
        raise InputLimitError(f"PDF has {pages} pages, over the {limit}-page limit",
                              "split it, or raise RAGBOT_MAX_PDF_PAGES")


def check_html_size(markup: str) -> None:
    """Refuse HTML with more elements than a document has, before building its tree."""
    elements = sum(1 for _ in _OPEN_TAG.finditer(markup))
    if elements > MAX_HTML_ELEMENTS:
        raise InputLimitError(f"HTML has {elements} elements, over the {MAX_HTML_ELEMENTS} "
                              "limit", "split the page or save it as text")


def check_html_depth(root: Any) -> None:
    """Refuse a parsed HTML tree nested deeper than MAX_HTML_DEPTH (walked without recursion)."""
    from bs4.element import Tag

    stack: list[tuple[Any, int]] = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_HTML_DEPTH:
            raise InputLimitError(f"HTML nests elements over {MAX_HTML_DEPTH} levels deep",
                                  "fix the page's markup (unclosed tags?) or save it as text")
        stack.extend((child, depth + 1) for child in node.children if isinstance(child, Tag))


class _BoundedLoader(yaml.SafeLoader):  # type: ignore[misc]  # PyYAML has no type hints
    """The safe loader, refusing more than a few aliases and deep nesting."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._aliases = 0
        self._depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            self._aliases += 1
            if self._aliases > MAX_YAML_ALIASES:
                raise InputLimitError(
                    f"front matter uses over {MAX_YAML_ALIASES} YAML aliases (*name)",
                    "write the values out instead of repeating anchors")
        self._depth += 1
        try:
            if self._depth > MAX_YAML_DEPTH:
                raise InputLimitError(
                    f"front matter nests over {MAX_YAML_DEPTH} levels deep",
                    "flatten the front matter")
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def load_front_matter(text: str) -> Any:
    """Parse YAML front matter with the safe loader, within size, alias and depth bounds."""
    size = len(text.encode())
    if size > MAX_FRONT_MATTER_BYTES:
        raise InputLimitError(
            f"front matter is {size // 1024} KB, over the {MAX_FRONT_MATTER_BYTES // 1024} KB "
            "limit", "move the content below the closing --- line")
    loader = _BoundedLoader(text)
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()
