"""Read files, folders and ``.jsonl`` corpora into SourceDocuments.

Every problem with one input item becomes a ``ReadFailure`` naming the item (file, or file
and line) and the fix; reading goes on with the next item. Nothing here touches the database.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml

from store.formats import read_docx, read_html, read_pdf
from store.types import PUBLIC, SourceDocument

TEXT_SUFFIXES = {".md": "markdown", ".markdown": "markdown", ".txt": "text"}
SUPPORTED = {*TEXT_SUFFIXES, ".html", ".htm", ".pdf", ".docx", ".jsonl"}
_ACL_KINDS = ("user:", "channel:", "group:")


@dataclass(frozen=True)
class ReadFailure:
    """One item that could not be read; ``doc_key`` when its identity is still known."""

    item: str
    reason: str
    fix: str = ""
    doc_key: str | None = None

    def message(self) -> str:
        return f"{self.item}: {self.reason}" + (f" ({self.fix})" if self.fix else "")


@dataclass
class Scope:
    """A folder or corpus whose vanished documents ``--prune`` may archive."""

    kind: str  # "folder" | "corpus"
    path: str
    seen: set[str] = field(default_factory=set)
    complete: bool = True  # False when an item's identity is unknown (then never prune)


@dataclass(frozen=True)
class Entry:
    path: Path
    scope: Scope | None
    explicit: bool  # named on the command line, not found by walking a folder


@dataclass
class Plan:
    entries: list[Entry]
    scopes: list[Scope]
    failures: list[ReadFailure]
    total: int  # documents expected (corpus lines count one each), for progress


def normalize_acl(value: Any, item: str) -> tuple[str, ...]:
    """A validated, de-duplicated access list; raises ValueError naming the bad entry."""
    if value is None:
        return (PUBLIC,)
    entries = [value] if isinstance(value, str) else value
    if not isinstance(entries, list | tuple):
        raise ValueError(f"{item}: acl must be a list of principals, got {type(value).__name__}")
    out: dict[str, None] = {}
    for entry in entries:
        text = str(entry).strip()
        if text != PUBLIC and not (text.startswith(_ACL_KINDS) and len(text.split(":", 1)[1])):
            raise ValueError(
                f"{item}: invalid acl entry {text!r} (use public, user:ID, channel:ID or "
                "group:ID)")
        out.setdefault(text, None)
    return tuple(out) or (PUBLIC,)


def plan(paths: Sequence[str | Path]) -> Plan:
    """Expand folders (recursively, supported suffixes only) and count expected documents."""
    entries: list[Entry] = []
    scopes: list[Scope] = []
    failures: list[ReadFailure] = []
    for raw in paths:
        path = Path(raw).expanduser().absolute()
        if path.is_dir():
            scope = Scope("folder", str(path.resolve()))
            scopes.append(scope)
            for root, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for name in sorted(files):
                    child = Path(root) / name
                    if not name.startswith(".") and child.suffix.lower() in SUPPORTED:
                        entries.append(Entry(child, scope, explicit=False))
        elif not os.path.lexists(path):
            failures.append(ReadFailure(str(path), "no such file or folder",
                                        "check the path"))
        else:
            scope = Scope("corpus", str(path.resolve())) if path.suffix == ".jsonl" else None
            if scope:
                scopes.append(scope)
            entries.append(Entry(path, scope, explicit=True))
    # The same file reached twice (a folder and a file inside it) is read once.
    unique: dict[str, Entry] = {}
    for entry in entries:
        unique.setdefault(os.path.realpath(entry.path), entry)
    entries = list(unique.values())
    total = sum(_count_lines(e.path) if e.path.suffix.lower() == ".jsonl" else 1
                for e in entries)
    return Plan(entries, scopes, failures, total)


def _count_lines(path: Path) -> int:
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return 1
        with open(path, "rb") as fh:
            return sum(1 for line in fh if line.strip()) or 1
    except OSError:
        return 1


def _check_file(path: Path, max_bytes: int | None) -> ReadFailure | None:
    item = str(path)
    try:
        info = os.stat(path)  # follows symlinks: a broken one raises here
    except FileNotFoundError:
        return ReadFailure(item, "cannot read: broken symbolic link or file removed",
                           "fix or remove the link")
    except OSError as exc:
        return ReadFailure(item, f"cannot read: {exc.strerror}", "check its permissions")
    if not stat.S_ISREG(info.st_mode):
        kind = "a FIFO" if stat.S_ISFIFO(info.st_mode) else "not a regular file"
        return ReadFailure(item, f"cannot read: {kind}", "pass regular files or folders only")
    if max_bytes is not None and info.st_size > max_bytes:
        return ReadFailure(
            item, f"file is {info.st_size / 2**20:.1f} MB, over the "
            f"{max_bytes / 2**20:g} MB limit",
            "raise it with --max-file-mb or RAGBOT_MAX_FILE_MB, or split the file")
    if info.st_size == 0:
        return ReadFailure(item, "file is empty", "remove it or add content")
    return None


def decode_text(data: bytes, item: str) -> str | ReadFailure:
    """UTF-8 text of ``data``, or a failure for binary content or another encoding."""
    if b"\x00" in data:
        return ReadFailure(item, "binary content (NUL bytes), not text",
                           "convert it to .txt/.md or remove it")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return ReadFailure(
            item, f"not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})",
            "re-save it as UTF-8, e.g. `iconv -f GBK -t UTF-8 FILE > NEW`")
    if not text.strip():
        return ReadFailure(item, "no text (only whitespace)", "remove it or add content")
    return text


def _front_matter(text: str, item: str) -> tuple[dict[str, Any], str] | ReadFailure:
    if not text.startswith("---"):
        return {}, text
    lines = text.split("\n")
    if lines[0].strip() != "---":
        return {}, text
    for end in range(1, len(lines)):
        if lines[end].strip() in ("---", "..."):
            break
    else:
        return ReadFailure(item, "front matter starts with --- but never ends",
                           "close it with a line containing ---")
    try:
        meta = yaml.safe_load("\n".join(lines[1:end])) or {}
    except yaml.YAMLError as exc:
        return ReadFailure(item, f"front matter is not valid YAML: {exc}".replace("\n", " "),
                           "fix the YAML between the --- lines")
    if not isinstance(meta, dict):
        return ReadFailure(item, "front matter is not a mapping", "write key: value lines")
    return meta, "\n".join(lines[end + 1:])


def _first_heading(text: str) -> str | None:
    for line in text.split("\n"):
        stripped = line.strip()
        if stripped.startswith("#") and stripped.lstrip("#").startswith(" "):
            return stripped.lstrip("#").strip()
    return None


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, ensure_ascii=False, default=str))


def _file_document(entry: Entry, *, doc_type: str | None, acl: tuple[str, ...] | None,
                   max_bytes: int | None) -> SourceDocument | ReadFailure:
    path = entry.path
    item = str(path)
    suffix = path.suffix.lower()
    if suffix not in SUPPORTED:
        return ReadFailure(item, f"unsupported file type {suffix or '(none)'}",
                           "use .md, .txt, .html, .pdf, .docx or .jsonl")
    failure = _check_file(path, max_bytes)
    if failure:
        return failure
    key = str(path.resolve())
    try:
        data = path.read_bytes()
    except OSError as exc:
        return ReadFailure(item, f"cannot read: {exc.strerror}", "check its permissions", key)
    meta: dict[str, Any] = {}
    title: str | None = None
    if suffix in TEXT_SUFFIXES or suffix in (".html", ".htm"):
        decoded = decode_text(data, item)
        if isinstance(decoded, ReadFailure):
            return ReadFailure(decoded.item, decoded.reason, decoded.fix, key)
        text = decoded
        fmt = TEXT_SUFFIXES.get(suffix, "markdown")
        if fmt == "markdown":
            parsed = _front_matter(text, item)
            if isinstance(parsed, ReadFailure):
                return ReadFailure(parsed.item, parsed.reason, parsed.fix, key)
            meta, text = parsed
            title = _first_heading(text)
        elif suffix in (".html", ".htm"):
            title, text = read_html(text)
    else:
        try:
            title, text = read_pdf(data) if suffix == ".pdf" else read_docx(data)
        except Exception as exc:  # noqa: BLE001 - any parser error is this file's problem
            kind = suffix.lstrip(".").upper()
            return ReadFailure(item, f"not a readable {kind} file ({type(exc).__name__}: "
                               f"{exc})".replace("\n", " "), f"re-save it as {kind}", key)
        fmt = "markdown"
    if not text.strip():
        return ReadFailure(item, "no text could be extracted",
                           "for a scanned PDF run OCR first; else add content", key)
    try:
        doc_acl = normalize_acl(meta["acl"], item) if "acl" in meta else (acl or (PUBLIC,))
    except ValueError as exc:
        return ReadFailure(item, str(exc).split(": ", 1)[1], "fix acl in the front matter", key)
    extra = {k: v for k, v in meta.items() if k not in ("title", "doc_type", "acl")}
    return SourceDocument(
        doc_key=key,
        source=key,
        title=str(meta.get("title") or title or path.stem).strip(),
        text=text,
        doc_type=str(meta.get("doc_type") or doc_type or "document"),
        acl=doc_acl,
        metadata=_jsonable({**extra, "format": suffix.lstrip("."),
                            "mtime": datetime.fromtimestamp(path.stat().st_mtime, UTC)}),
        fmt=fmt,
    )


def _corpus_line(raw: bytes, item: str, corpus: str, *, doc_type: str | None,
                 acl: tuple[str, ...] | None, max_bytes: int | None
                 ) -> SourceDocument | ReadFailure:
    if max_bytes is not None and len(raw) > max_bytes:
        return ReadFailure(item, f"line is {len(raw) / 2**20:.1f} MB, over the "
                           f"{max_bytes / 2**20:g} MB limit",
                           "raise it with --max-file-mb or split the document")
    decoded = decode_text(raw, item)
    if isinstance(decoded, ReadFailure):
        return decoded
    try:
        record = json.loads(decoded)
    except json.JSONDecodeError as exc:
        return ReadFailure(item, f"not valid JSON ({exc.msg} at column {exc.colno})",
                           "fix or remove the line")
    if not isinstance(record, dict):
        return ReadFailure(item, "not a JSON object", 'write {"id": ..., "text": ...}')
    doc_id = record.get("id")
    if not isinstance(doc_id, str | int) or isinstance(doc_id, bool) or not str(doc_id):
        return ReadFailure(item, "missing or invalid \"id\"", "give each line a unique id")
    key = str(doc_id)
    text = record.get("text")
    if not isinstance(text, str) or not text.strip():
        return ReadFailure(item, f"document {key!r} has no \"text\"",
                           "add the text or remove the line", key)
    metadata = record.get("metadata") or {}
    if not isinstance(metadata, dict):
        return ReadFailure(item, "\"metadata\" is not an object", "make it a JSON object", key)
    try:
        doc_acl = normalize_acl(metadata["acl"], item) if "acl" in metadata else (
            acl or (PUBLIC,))
    except ValueError as exc:
        return ReadFailure(item, str(exc).split(": ", 1)[1], "fix metadata.acl", key)
    title = record.get("title")
    return SourceDocument(
        doc_key=key,
        source=str(metadata.get("source") or f"{corpus}#{key}"),
        title=str(title).strip() if title else key,
        text=text,
        doc_type=str(metadata.get("doc_type") or doc_type or "document"),
        acl=doc_acl,
        metadata={**metadata, "corpus": corpus},
        fmt=str(metadata.get("format") or "text"),
    )


def _corpus_documents(entry: Entry, *, doc_type: str | None, acl: tuple[str, ...] | None,
                      max_bytes: int | None) -> Iterator[SourceDocument | ReadFailure]:
    failure = _check_file(entry.path, None)
    if failure:
        if entry.scope:
            entry.scope.complete = False
        yield failure
        return
    corpus = str(entry.path.resolve())
    with open(entry.path, "rb") as fh:
        for number, raw in enumerate(fh, start=1):
            if not raw.strip():
                continue
            result = _corpus_line(raw.rstrip(b"\r\n"), f"{entry.path}:{number}", corpus,
                                  doc_type=doc_type, acl=acl, max_bytes=max_bytes)
            if isinstance(result, ReadFailure) and result.doc_key is None and entry.scope:
                entry.scope.complete = False
            yield result


def read_plan(the_plan: Plan, *, doc_type: str | None = None,
              acl: Sequence[str] | None = None, max_bytes: int | None = None
              ) -> Iterator[SourceDocument | ReadFailure]:
    """Documents and failures of every planned entry, in order; records what each scope saw.

    ``doc_type`` and ``acl`` are defaults: a document's own front matter or corpus metadata
    wins over them.
    """
    default_acl = normalize_acl(list(acl), "--acl") if acl else None
    yield from the_plan.failures
    for entry in the_plan.entries:
        if entry.path.suffix.lower() == ".jsonl":
            items: Iterator[SourceDocument | ReadFailure] = _corpus_documents(
                entry, doc_type=doc_type, acl=default_acl, max_bytes=max_bytes)
        else:
            items = iter([_file_document(entry, doc_type=doc_type, acl=default_acl,
                                         max_bytes=max_bytes)])
        for item in items:
            key = item.doc_key
            if entry.scope is not None and key is not None:
                entry.scope.seen.add(key)
            elif entry.scope is not None and entry.scope.kind == "folder":
                entry.scope.seen.add(str(entry.path.resolve()))
            yield item
