"""One input file into a SourceDocument, and the checks every input item shares.

Each problem raises ``ItemError`` (reason and fix); any other exception a parser raises is
turned into one by ``unexpected``. The readers in ``store.readers`` make either a
``ReadFailure`` naming the item.
"""

from __future__ import annotations

import json
import os
import stat
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml

from store.formats import html_meta, read_docx, read_html, read_pdf
from store.limits import InputLimitError, ReadLimits, load_front_matter
from store.types import PUBLIC, AclOrigin, SourceDocument

TEXT_SUFFIXES = {".md": "markdown", ".markdown": "markdown", ".txt": "text"}
SUPPORTED = {*TEXT_SUFFIXES, ".html", ".htm", ".pdf", ".docx", ".jsonl"}
_ACL_KINDS = ("user:", "channel:", "group:")
_ERROR_CHARS = 200  # of an unexpected exception's text, in a failure line


def normalize_acl(value: Any, item: str) -> tuple[str, ...]:
    """A validated, de-duplicated access list; raises ValueError naming the bad entry."""
    if value is None:
        return (PUBLIC,)
    entries = [value] if isinstance(value, str) else value
    if not isinstance(entries, list | tuple):
        raise TypeError(f"{item}: acl must be a list of principals, got {type(value).__name__}")
    out: dict[str, None] = {}
    for entry in entries:
        text = str(entry).strip()
        if text != PUBLIC and not (text.startswith(_ACL_KINDS) and len(text.split(":", 1)[1])):
            raise ValueError(
                f"{item}: invalid acl entry {text!r} (use public, user:ID, channel:ID or "
                "group:ID)")
        out.setdefault(text, None)
    return tuple(out) or (PUBLIC,)


class ItemError(Exception):
    """One item's problem (reason and fix); the caller turns it into a ReadFailure."""

    def __init__(self, reason: str, fix: str = "") -> None:
        super().__init__(reason)
        self.reason, self.fix = reason.replace("\n", " "), fix


def check_file(path: Path, max_bytes: int | None) -> None:
    """A regular, non-empty file within ``max_bytes``, checked before it is opened."""
    try:
        info = os.stat(path)  # follows symlinks: a broken one raises here
    except FileNotFoundError:
        raise ItemError("cannot read: broken symbolic link or file removed",
                   "fix or remove the link") from None
    except OSError as exc:
        raise ItemError(f"cannot read: {exc.strerror}", "check its permissions") from None
    if not stat.S_ISREG(info.st_mode):  # opening a FIFO would block forever
        kind = "a FIFO" if stat.S_ISFIFO(info.st_mode) else "not a regular file"
        raise ItemError(f"cannot read: {kind}", "pass regular files or folders only")
    if max_bytes is not None and info.st_size > max_bytes:
        raise ItemError(f"file is {info.st_size / 2**20:.1f} MB, over the {max_bytes / 2**20:g} MB "
                   "limit", "raise it with --max-file-mb or RAGBOT_MAX_FILE_MB, or split the file")
    if info.st_size == 0:
        raise ItemError("file is empty", "remove it or add content")


def likely_encoding(data: bytes) -> str:
    """``GBK`` or ``LATIN1``: the legacy encoding under which ``data`` reads as plausible text.

    Chinese text in GBK is almost all GB2312 characters, both bytes 0xA1 or above; Latin-1
    text read as GBK either fails or pairs an accented letter with the ASCII letter after it.
    """
    try:
        text = data.decode("gbk")
    except UnicodeDecodeError:
        return "LATIN1"
    wide = [ch for ch in text if ord(ch) > 0x7F]
    common = sum(1 for ch in wide if min(ch.encode("gbk")) >= 0xA1)
    return "GBK" if wide and common >= 0.9 * len(wide) else "LATIN1"


def decode(data: bytes) -> str:
    """UTF-8 text with some content; binary data and other encodings are refused."""
    if b"\x00" in data:
        raise ItemError("binary content (NUL bytes), not text",
                        "convert it to .txt/.md or remove it")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        encoding = likely_encoding(data)
        raise ItemError(f"not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start}); "
                        f"it looks like {encoding}",
                        f"re-save it as UTF-8, e.g. `iconv -f {encoding} -t UTF-8 FILE > NEW`"
                        ) from None
    if not text.strip():
        raise ItemError("no text (only whitespace)", "remove it or add content")
    return text


def _front_matter(text: str) -> tuple[dict[str, Any], str]:
    lines = text.split("\n")
    if lines[0].strip() != "---":
        return {}, text
    end = next((i for i in range(1, len(lines)) if lines[i].strip() in ("---", "...")), None)
    if end is None:
        raise ItemError("front matter starts with --- but never ends",
                   "close it with a line containing ---")
    try:
        meta = load_front_matter("\n".join(lines[1:end])) or {}
    except InputLimitError as exc:
        raise ItemError(exc.reason, exc.fix) from None
    except yaml.YAMLError as exc:
        raise ItemError(f"front matter is not valid YAML: {exc}",
                   "fix the YAML between the --- lines") from None
    if not isinstance(meta, dict):
        raise ItemError("front matter is not a mapping", "write key: value lines")
    return meta, "\n".join(lines[end + 1:])


def _first_heading(text: str) -> str | None:
    for line in text.split("\n"):
        stripped = line.strip()
        if stripped.startswith("#") and stripped.lstrip("#").startswith(" "):
            return stripped.lstrip("#").strip()
    return None


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, ensure_ascii=False, default=str))


def acl_from(meta: dict[str, Any], default: tuple[str, ...] | None, fix: str
             ) -> tuple[tuple[str, ...], AclOrigin]:
    """The document's own ``acl`` from ``meta``, else ``default`` (--acl), else public; and
    which of the three it was."""
    if "acl" not in meta:
        return (default, "option") if default else ((PUBLIC,), "default")
    try:
        return normalize_acl(meta["acl"], ""), "document"
    except (ValueError, TypeError) as exc:
        raise ItemError(str(exc).removeprefix(": "), fix) from None


def _parse_file(path: Path, suffix: str, limits: ReadLimits
                ) -> tuple[str | None, str, dict[str, Any], str]:
    """Title, text, front matter and chunking format of one supported file."""
    data = path.read_bytes()
    if suffix in (".pdf", ".docx"):
        try:
            title, text = (read_pdf(data, limits.max_pdf_pages) if suffix == ".pdf"
                           else read_docx(data))
        except InputLimitError as exc:
            raise ItemError(exc.reason, exc.fix) from None
        # Parsers raise many unrelated types on corrupt input; all are this file's problem.
        except Exception as exc:
            kind = suffix.lstrip(".").upper()
            raise ItemError(f"not a readable {kind} file ({type(exc).__name__}: {exc})",
                       f"re-save it as {kind}") from None
        # PDF text has no markup: a line starting with "#" or "|" is not structure.
        return title, text, {}, "text" if suffix == ".pdf" else "markdown"
    text = decode(data)
    if suffix in (".html", ".htm"):
        try:
            title, body = read_html(text)
        except InputLimitError as exc:
            raise ItemError(exc.reason, exc.fix) from None
        return title, body, html_meta(text), "markdown"
    fmt = TEXT_SUFFIXES[suffix]
    if fmt != "markdown":
        return None, text, {}, fmt
    meta, body = _front_matter(text)
    return _first_heading(body), body, meta, fmt


def check_words(text: str) -> None:
    """Refuse text without a letter or digit: there is nothing in it to search."""
    if not any(ch.isalnum() for ch in text):  # e.g. a megabyte of dots: nothing to search
        raise ItemError("no words to index (only punctuation or symbols)",
                   "remove it or add content")


def file_document(path: Path, *, doc_type: str | None, acl: tuple[str, ...] | None,
                   limits: ReadLimits) -> SourceDocument:
    """One supported file as a document; raises ItemError naming what is wrong."""
    suffix = path.suffix.lower()
    if suffix not in SUPPORTED:
        raise ItemError(f"unsupported file type {suffix or '(none)'}",
                   "use .md, .txt, .html, .pdf, .docx or .jsonl")
    check_file(path, limits.max_file_bytes)
    try:
        title, text, meta, fmt = _parse_file(path, suffix, limits)
    except OSError as exc:
        raise ItemError(f"cannot read: {exc.strerror}", "check its permissions") from None
    if not text.strip():
        raise ItemError("no text could be extracted",
                   "for a scanned PDF run OCR first; else add content")
    check_words(text)
    key = str(path.resolve())
    doc_acl, origin = acl_from(meta, acl, "fix acl in the front matter")
    extra = {k: v for k, v in meta.items() if k not in ("title", "doc_type", "acl")}
    return SourceDocument(
        doc_key=key,
        source=key,
        title=str(meta.get("title") or title or path.stem).strip(),
        text=text,
        doc_type=str(meta.get("doc_type") or doc_type or "document"),
        acl=doc_acl,
        acl_origin=origin,
        metadata=_jsonable({**extra, "format": suffix.lstrip("."),
                            "mtime": datetime.fromtimestamp(path.stat().st_mtime, UTC)}),
        fmt=fmt,
    )



def unexpected(exc: Exception) -> ItemError:
    """Any other error reading one item (a parser bug, MemoryError, RecursionError)."""
    text = " ".join(str(exc).split())[:_ERROR_CHARS]
    return ItemError(f"could not be read ({type(exc).__name__}{': ' + text if text else ''})",
                "fix or remove it; the other files were read")


