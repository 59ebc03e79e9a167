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
from pathlib import Path
from typing import Any

from store.file_reader import (
    SUPPORTED,
    TEXT_SUFFIXES,
    ItemError,
    acl_from,
    check_file,
    check_words,
    decode,
    file_document,
    normalize_acl,
    unexpected,
)
from store.limits import ReadLimits
from store.types import SourceDocument

__all__ = ["SUPPORTED", "TEXT_SUFFIXES", "Entry", "Plan", "ReadFailure", "Scope",
           "normalize_acl", "plan", "read_plan"]



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


def _corpus_record(raw: bytes, max_bytes: int | None) -> dict[str, Any]:
    if max_bytes is not None and len(raw) > max_bytes:
        raise ItemError(f"line is {len(raw) / 2**20:.1f} MB, over the {max_bytes / 2**20:g} MB "
                   "limit", "raise it with --max-file-mb or split the document")
    try:
        record = json.loads(decode(raw))
    except json.JSONDecodeError as exc:
        raise ItemError(f"not valid JSON ({exc.msg} at column {exc.colno})",
                   "fix or remove the line") from None
    if not isinstance(record, dict):
        raise ItemError("not a JSON object", 'write {"id": ..., "text": ...}')
    doc_id = record.get("id")
    if not isinstance(doc_id, str | int) or isinstance(doc_id, bool) or not str(doc_id):
        raise ItemError('missing or invalid "id"', "give each line a unique id")
    return record


def _corpus_document(record: dict[str, Any], key: str, corpus: str, *,
                     doc_type: str | None, acl: tuple[str, ...] | None) -> SourceDocument:
    text = record.get("text")
    if not isinstance(text, str) or not text.strip():
        raise ItemError(f'document {key!r} has no "text"', "add the text or remove the line")
    check_words(text)
    metadata = record.get("metadata") or {}
    if not isinstance(metadata, dict):
        raise ItemError('"metadata" is not an object', "make it a JSON object")
    title = record.get("title")
    doc_acl, origin = acl_from(metadata, acl, "fix metadata.acl")
    return SourceDocument(
        doc_key=key,
        source=str(metadata.get("source") or f"{corpus}#{key}"),
        title=str(title).strip() if title else key,
        text=text,
        doc_type=str(metadata.get("doc_type") or doc_type or "document"),
        acl=doc_acl,
        acl_origin=origin,
        metadata={**metadata, "corpus": corpus},
        fmt=str(metadata.get("format") or "text"),
    )


def _check_corpus(path: Path) -> None:
    check_file(path, None)  # the size limit applies per line (per document)
    with open(path, "rb") as fh:
        head = fh.read(8192)
    if b"\x00" in head:
        raise ItemError("binary content (NUL bytes), not a .jsonl corpus",
                   "pass a UTF-8 file with one JSON object per line")


def _corpus_documents(entry: Entry, *, doc_type: str | None, acl: tuple[str, ...] | None,
                      max_bytes: int | None) -> Iterator[SourceDocument | ReadFailure]:
    item = str(entry.path)
    try:
        _check_corpus(entry.path)
    except ItemError as bad:
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
            except Exception as exc:
                problem = exc if isinstance(exc, ItemError) else unexpected(exc)
                if key is None and entry.scope:
                    entry.scope.complete = False  # an unknown id: pruning could be wrong
                yield ReadFailure(f"{item}:{number}", problem.reason, problem.fix, key)


def _read_entry(entry: Entry, *, doc_type: str | None, acl: tuple[str, ...] | None,
                limits: ReadLimits) -> Iterator[SourceDocument | ReadFailure]:
    if entry.path.suffix.lower() == ".jsonl":
        try:
            yield from _corpus_documents(entry, doc_type=doc_type, acl=acl,
                                         max_bytes=limits.max_file_bytes)
        except Exception as exc:  # reading the file itself broke off: the rest is unknown
            if entry.scope:
                entry.scope.complete = False
            problem = unexpected(exc)
            yield ReadFailure(str(entry.path), problem.reason, problem.fix)
        return
    try:
        yield file_document(entry.path, doc_type=doc_type, acl=acl, limits=limits)
    except Exception as exc:  # whatever one file does, it is that file's failure
        problem = exc if isinstance(exc, ItemError) else unexpected(exc)
        yield ReadFailure(str(entry.path), problem.reason, problem.fix,
                          str(entry.path.resolve()))


def read_plan(the_plan: Plan, *, doc_type: str | None = None,
              acl: Sequence[str] | None = None, max_bytes: int | None = None,
              limits: ReadLimits | None = None) -> Iterator[SourceDocument | ReadFailure]:
    """Documents and failures of every planned entry, in order; records what each scope saw.

    ``doc_type`` and ``acl`` are defaults: a document's own front matter or corpus metadata
    wins over them. ``limits`` bound what one file may cost (its ``max_file_bytes`` is
    replaced by ``max_bytes`` when that is given); a file over one is a failure.
    """
    default_acl = normalize_acl(list(acl), "--acl") if acl else None
    limits = limits or ReadLimits(max_file_bytes=None)
    if max_bytes is not None:
        limits = ReadLimits(max_file_bytes=max_bytes, max_pdf_pages=limits.max_pdf_pages)
    yield from the_plan.failures
    for entry in the_plan.entries:
        for item in _read_entry(entry, doc_type=doc_type, acl=default_acl, limits=limits):
            if entry.scope is not None and item.doc_key is not None:
                entry.scope.seen.add(item.doc_key)
            yield item
