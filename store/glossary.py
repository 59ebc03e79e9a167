"""The office glossary: a KB's own synonyms, kept as data an admin extends.

A ``glossary.tsv`` at the top of an ingested folder holds one entry per line: a term, then,
tab-separated, the words or phrases that count as it ("第三季度<TAB>Q3"). Entries go one
way; write the reverse line too when both directions hold. Lines starting with ``#`` are
comments. Ingesting the folder replaces the entries that file gave before, so deleting a line
and ingesting again removes it. The agent adds a term's synonyms to the keyword query and
counts a passage holding one as holding the term.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

GLOSSARY_FILE = "glossary.tsv"

Glossary = Mapping[str, tuple[str, ...]]


@dataclass
class ParsedGlossary:
    """A glossary file's entries (term -> synonyms) and its bad lines, each with the fix."""

    entries: dict[str, tuple[str, ...]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def parse_glossary(text: str, source: str) -> ParsedGlossary:
    """Entries of a glossary file's ``text``; a line without a synonym is reported (naming
    ``source`` and the line) and skipped, the rest are kept. Terms are matched lower-cased."""
    out = ParsedGlossary()
    for n, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        fields = [f.strip() for f in raw.split("\t") if f.strip()]
        if len(fields) < 2:
            out.problems.append(
                f"{source}:{n}: {raw.strip()[:40]!r} has no synonym; write the term, a tab, "
                "then one or more synonyms separated by tabs")
            continue
        term = fields[0].lower()
        known = out.entries.get(term, ())
        out.entries[term] = tuple(dict.fromkeys([*known, *fields[1:]]))
    return out


def glossary_file(path: Path) -> Path | None:
    """The glossary file at the top of folder ``path``, if it has one."""
    candidate = path / GLOSSARY_FILE
    return candidate if path.is_dir() and candidate.is_file() else None


def replace_glossary(conn: Any, kb_id: int, source: str, entries: Glossary) -> None:
    """Make ``entries`` the KB's glossary lines from ``source`` (one transaction)."""
    with conn.transaction():
        conn.execute("DELETE FROM glossary_terms WHERE kb_id = %s AND source = %s",
                     [kb_id, source])
        for term, synonyms in entries.items():
            conn.execute("INSERT INTO glossary_terms (kb_id, source, term, synonyms) "
                         "VALUES (%s, %s, %s, %s)", [kb_id, source, term, list(synonyms)])


def read_glossary(conn: Any, kb_id: int) -> dict[str, tuple[str, ...]]:
    """The KB's glossary, every source's entries merged."""
    rows = conn.execute("SELECT term, synonyms FROM glossary_terms WHERE kb_id = %s "
                        "ORDER BY source, term", [kb_id]).fetchall()
    out: dict[str, tuple[str, ...]] = {}
    for term, synonyms in rows:
        out[term] = tuple(dict.fromkeys([*out.get(term, ()), *synonyms]))
    return out


class GlossaryCache:
    """Each KB's glossary, re-read after ``ttl_s`` (it changes only at ingest)."""

    def __init__(self, ttl_s: float = 30.0) -> None:
        self.ttl_s = ttl_s
        self._lock = threading.Lock()
        self._entries: dict[str, tuple[float, dict[str, tuple[str, ...]]]] = {}

    def get(self, pool: Any, kb_name: str) -> dict[str, tuple[str, ...]]:
        from store.kb import get_kb

        now = time.monotonic()
        with self._lock:
            hit = self._entries.get(kb_name)
        if hit is not None and now - hit[0] < self.ttl_s:
            return hit[1]
        with pool.connection() as conn:
            glossary = read_glossary(conn, get_kb(conn, kb_name).id)
        with self._lock:
            self._entries[kb_name] = (now, glossary)
        return glossary
