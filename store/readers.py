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
                    if name.startswith(".") or child.suffix.lower() not in SUPPORTED:
                        continue
                    if child.suffix.lower() == ".jsonl":  # ids, not paths, identify its docs
                        nested = Scope("corpus", str(child.resolve()))
                        scopes.append(nested)
                        entries.append(Entry(child, nested, explicit=False))
                    else:
                        entries.append(Entry(child, scope, explicit=False))
        elif not os.path.lexists(path):
            failures.append(ReadFailure(str(path), "no such file or folder",
                                        "check the path"))
        else:
            corpus = Scope("corpus", str(path.resolve())) if path.suffix == ".jsonl" else None
            if corpus:
                scopes.append(corpus)
            entries.append(Entry(path, corpus, explicit=True))
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


class _Bad(Exception):
    """One item's problem (reason and fix); the caller turns it into a ReadFailure."""

    def __init__(self, reason: str, fix: str = "") -> None:
        super().__init__(reason)
        self.reason, self.fix = reason.replace("\n", " "), fix


def _check_file(path: Path, max_bytes: int | None) -> None:
    try:
        info = os.stat(path)  # follows symlinks: a broken one raises here
    except FileNotFoundError:
        raise _Bad("cannot read: broken symbolic link or file removed",
                   "fix or remove the link") from None
    except OSError as exc:
        raise _Bad(f"cannot read: {exc.strerror}", "check its permissions") from None
    if not stat.S_ISREG(info.st_mode):  # opening a FIFO would block forever
        kind = "a FIFO" if stat.S_ISFIFO(info.st_mode) else "not a regular file"
        raise _Bad(f"cannot read: {kind}", "pass regular files or folders only")
    if max_bytes is not None and info.st_size > max_bytes:
        raise _Bad(f"file is {info.st_size / 2**20:.1f} MB, over the {max_bytes / 2**20:g} MB "
                   "limit", "raise it with --max-file-mb or RAGBOT_MAX_FILE_MB, or split the file")
    if info.st_size == 0:
        raise _Bad("file is empty", "remove it or add content")


def _decode(data: bytes) -> str:
    if b"\x00" in data:
        raise _Bad("binary content (NUL bytes), not text", "convert it to .txt/.md or remove it")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise _Bad(f"not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})",
                   "re-save it as UTF-8, e.g. `iconv -f GBK -t UTF-8 FILE > NEW`") from None
    if not text.strip():
        raise _Bad("no text (only whitespace)", "remove it or add content")
    return text


def _front_matter(text: str) -> tuple[dict[str, Any], str]:
    lines = text.split("\n")
    if lines[0].strip() != "---":
        return {}, text
    end = next((i for i in range(1, len(lines)) if lines[i].strip() in ("---", "...")), None)
    if end is None:
        raise _Bad("front matter starts with --- but never ends",
                   "close it with a line containing ---")
    try:
        meta = yaml.safe_load("\n".join(lines[1:end])) or {}
    except yaml.YAMLError as exc:
        raise _Bad(f"front matter is not valid YAML: {exc}",
                   "fix the YAML between the --- lines") from None
    if not isinstance(meta, dict):
        raise _Bad("front matter is not a mapping", "write key: value lines")
    return meta, "\n".join(lines[end + 1:])


def _first_heading(text: str) -> str | None:
    for line in text.split("\n"):
        stripped = line.strip()
        if stripped.startswith("#") and stripped.lstrip("#").startswith(" "):
            return stripped.lstrip("#").strip()
    return None


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, ensure_ascii=False, default=str))


def _acl(meta: dict[str, Any], default: tuple[str, ...] | None, fix: str) -> tuple[str, ...]:
    if "acl" not in meta:
        return default or (PUBLIC,)
    try:
        return normalize_acl(meta["acl"], "")
    except (ValueError, TypeError) as exc:
        raise _Bad(str(exc).removeprefix(": "), fix) from None


def _parse_file(path: Path, suffix: str) -> tuple[str | None, str, dict[str, Any], str]:
    """Title, text, front matter and chunking format of one supported file."""
    data = path.read_bytes()
    if suffix in (".pdf", ".docx"):
        try:
            title, text = read_pdf(data) if suffix == ".pdf" else read_docx(data)
        # Parsers raise many unrelated types on corrupt input; all are this file's problem.
        except Exception as exc:
            kind = suffix.lstrip(".").upper()
            raise _Bad(f"not a readable {kind} file ({type(exc).__name__}: {exc})",
                       f"re-save it as {kind}") from None
        # PDF text has no markup: a line starting with "#" or "|" is not structure.
        return title, text, {}, "text" if suffix == ".pdf" else "markdown"
    text = _decode(data)
    if suffix in (".html", ".htm"):
        title, body = read_html(text)
        return title, body, {}, "markdown"
    fmt = TEXT_SUFFIXES[suffix]
    if fmt != "markdown":
        return None, text, {}, fmt
    meta, body = _front_matter(text)
    return _first_heading(body), body, meta, fmt


def _file_document(path: Path, *, doc_type: str | None, acl: tuple[str, ...] | None,
                   max_bytes: int | None) -> SourceDocument:
    suffix = path.suffix.lower()
    if suffix not in SUPPORTED:
        raise _Bad(f"unsupported file type {suffix or '(none)'}",
                   "use .md, .txt, .html, .pdf, .docx or .jsonl")
    _check_file(path, max_bytes)
    try:
        title, text, meta, fmt = _parse_file(path, suffix)
    except OSError as exc:
        raise _Bad(f"cannot read: {exc.strerror}", "check its permissions") from None
    if not text.strip():
        raise _Bad("no text could be extracted",
                   "for a scanned PDF run OCR first; else add content")
    key = str(path.resolve())
    extra = {k: v for k, v in meta.items() if k not in ("title", "doc_type", "acl")}
    return SourceDocument(
        doc_key=key,
        source=key,
        title=str(meta.get("title") or title or path.stem).strip(),
        text=text,
        doc_type=str(meta.get("doc_type") or doc_type or "document"),
        acl=_acl(meta, acl, "fix acl in the front matter"),
        metadata=_jsonable({**extra, "format": suffix.lstrip("."),
                            "mtime": datetime.fromtimestamp(path.stat().st_mtime, UTC)}),
        fmt=fmt,
    )


def _corpus_record(raw: bytes, max_bytes: int | None) -> dict[str, Any]:
    if max_bytes is not None and len(raw) > max_bytes:
        raise _Bad(f"line is {len(raw) / 2**20:.1f} MB, over the {max_bytes / 2**20:g} MB "
                   "limit", "raise it with --max-file-mb or split the document")
    try:
        record = json.loads(_decode(raw))
    except json.JSONDecodeError as exc:
        raise _Bad(f"not valid JSON ({exc.msg} at column {exc.colno})",
                   "fix or remove the line") from None
    if not isinstance(record, dict):
        raise _Bad("not a JSON object", 'write {"id": ..., "text": ...}')
    doc_id = record.get("id")
    if not isinstance(doc_id, str | int) or isinstance(doc_id, bool) or not str(doc_id):
        raise _Bad('missing or invalid "id"', "give each line a unique id")
    return record


def _corpus_document(record: dict[str, Any], key: str, corpus: str, *,
                     doc_type: str | None, acl: tuple[str, ...] | None) -> SourceDocument:
    text = record.get("text")
    if not isinstance(text, str) or not text.strip():
        raise _Bad(f'document {key!r} has no "text"', "add the text or remove the line")
    metadata = record.get("metadata") or {}
    if not isinstance(metadata, dict):
        raise _Bad('"metadata" is not an object', "make it a JSON object")
    title = record.get("title")
    return SourceDocument(
        doc_key=key,
        source=str(metadata.get("source") or f"{corpus}#{key}"),
        title=str(title).strip() if title else key,
        text=text,
        doc_type=str(metadata.get("doc_type") or doc_type or "document"),
        acl=_acl(metadata, acl, "fix metadata.acl"),
        metadata={**metadata, "corpus": corpus},
        fmt=str(metadata.get("format") or "text"),
    )


def _check_corpus(path: Path) -> None:
    _check_file(path, None)  # the size limit applies per line (per document)
    with open(path, "rb") as fh:
        head = fh.read(8192)
    if b"\x00" in head:
        raise _Bad("binary content (NUL bytes), not a .jsonl corpus",
                   "pass a UTF-8 file with one JSON object per line")


def _corpus_documents(entry: Entry, *, doc_type: str | None, acl: tuple[str, ...] | None,
                      max_bytes: int | None) -> Iterator[SourceDocument | ReadFailure]:
    item = str(entry.path)
    try:
        _check_corpus(entry.path)
    except _Bad as bad:
        if entry.scope:
            entry.scope.complete = False
        yield ReadFailure(item, bad.reason, bad.fix)
        return
    corpus = str(entry.path.resolve())
    with open(entry.path, "rb") as fh:
        for number, raw in enumerate(fh, start=1):
            if not raw.strip():
                continue
            key = None
            try:
                record = _corpus_record(raw.rstrip(b"\r\n"), max_bytes)
                key = str(record["id"])
                yield _corpus_document(record, key, corpus, doc_type=doc_type, acl=acl)
            except _Bad as bad:
                if key is None and entry.scope:
                    entry.scope.complete = False  # an unknown id: pruning could be wrong
                yield ReadFailure(f"{item}:{number}", bad.reason, bad.fix, key)


def _read_entry(entry: Entry, *, doc_type: str | None, acl: tuple[str, ...] | None,
                max_bytes: int | None) -> Iterator[SourceDocument | ReadFailure]:
    if entry.path.suffix.lower() == ".jsonl":
        yield from _corpus_documents(entry, doc_type=doc_type, acl=acl, max_bytes=max_bytes)
        return
    try:
        yield _file_document(entry.path, doc_type=doc_type, acl=acl, max_bytes=max_bytes)
    except _Bad as bad:
        yield ReadFailure(str(entry.path), bad.reason, bad.fix, str(entry.path.resolve()))


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
        for item in _read_entry(entry, doc_type=doc_type, acl=default_acl,
                                max_bytes=max_bytes):
            if entry.scope is not None and item.doc_key is not None:
                entry.scope.seen.add(item.doc_key)
            yield item
