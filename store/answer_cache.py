"""Answer cache: final answers of standalone questions, per knowledge-base content.

An entry is keyed by the KB's ``content_version`` (changed by triggers in every transaction
that writes its documents or chunks, and when a reindex switches generations; see
migration "answer cache"), the asker's access principals (sorted) and the normalized
question. So any ingest, reindex, prune or access-list change makes every older entry
unreachable, and an answer never reaches someone with other principals. Entries of older
versions are deleted when a newer one is stored.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

_SPACE = re.compile(r"\s+")
# Trailing punctuation and quotes that do not change what is asked ("VPN?" == "vpn").
_TRAILING = "?？!！.。,，;；:：'\"“”‘’ "


def normalize_question(text: str) -> str:
    """The cache form of a question: NFKC, case-folded, spaces collapsed, trailing
    punctuation dropped (full-width Chinese punctuation included)."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return _SPACE.sub(" ", folded).strip().rstrip(_TRAILING).strip()


def principals_key(principals: Iterable[str]) -> list[str]:
    """Principals as one canonical list: sorted, without duplicates."""
    return sorted(set(principals))


@dataclass(frozen=True)
class Lookup:
    """What a lookup found: the KB's id and content version (None when the KB does not
    exist) and the cached entry with the trace it was first answered under."""

    kb_id: int | None
    version: int | None
    entry: dict[str, Any] | None = None
    trace_id: str | None = None


def lookup(conn: psycopg.Connection[Any], kb: str, principals: Iterable[str],
           question: str) -> Lookup:
    """Find the cached answer and count the lookup (and hit) in one round trip."""
    row = conn.execute(
        """
        WITH kb AS (SELECT id, content_version FROM knowledge_bases WHERE name = %(kb)s),
        hit AS (
            UPDATE answer_cache c SET hits = c.hits + 1, last_hit_at = now()
              FROM kb
             WHERE c.kb_id = kb.id AND c.content_version = kb.content_version
               AND c.principals = %(p)s AND c.question_key = %(q)s
            RETURNING c.entry, c.trace_id),
        stat AS (
            INSERT INTO answer_cache_stats AS s (kb_id, lookups, hits)
            SELECT kb.id, 1, (SELECT count(*) FROM hit) FROM kb
            ON CONFLICT (kb_id) DO UPDATE
               SET lookups = s.lookups + 1, hits = s.hits + excluded.hits)
        SELECT kb.id, kb.content_version, hit.entry, hit.trace_id FROM kb LEFT JOIN hit ON true
        """,
        {"kb": kb, "p": principals_key(principals), "q": normalize_question(question)},
    ).fetchone()
    if row is None:
        return Lookup(kb_id=None, version=None)
    return Lookup(kb_id=int(row[0]), version=int(row[1]), entry=row[2], trace_id=row[3])


def content_version(conn: psycopg.Connection[Any], kb: str) -> Lookup:
    """The KB's id and content version, without looking anything up."""
    row = conn.execute("SELECT id, content_version FROM knowledge_bases WHERE name = %s",
                       [kb]).fetchone()
    return Lookup(kb_id=int(row[0]), version=int(row[1])) if row else Lookup(None, None)


def store(conn: psycopg.Connection[Any], *, kb_id: int, version: int,
          principals: Iterable[str], question: str, trace_id: str,
          entry: dict[str, Any]) -> None:
    """Keep ``entry`` for (``version``, principals, question); drop the KB's entries of
    other versions. ``version`` is the one read *before* answering: if the KB changed
    meanwhile, the entry is unreachable at once instead of serving an answer from old
    content under the new version."""
    with conn.transaction():
        conn.execute("DELETE FROM answer_cache WHERE kb_id = %s AND content_version <> %s",
                     [kb_id, version])
        conn.execute(
            """
            INSERT INTO answer_cache (kb_id, content_version, principals, question_key,
                                      trace_id, entry)
            VALUES (%s, %s, %s, %s, %s, %s)
            ON CONFLICT (kb_id, content_version, principals, question_key) DO UPDATE
               SET trace_id = EXCLUDED.trace_id, entry = EXCLUDED.entry,
                   created_at = now(), hits = 0
            """,
            [kb_id, version, principals_key(principals), normalize_question(question),
             trace_id, Jsonb(entry)])


def evict(conn: psycopg.Connection[Any], trace_ids: Iterable[str | None]) -> int:
    """Delete entries first answered under any of ``trace_ids``; returns how many."""
    ids = [t for t in trace_ids if t]
    if not ids:
        return 0
    return conn.execute("DELETE FROM answer_cache WHERE trace_id = ANY(%s)", [ids]).rowcount


def stats(conn: psycopg.Connection[Any], kb_id: int) -> dict[str, Any]:
    """Lookups and hits of the KB's cache since it was created, and the live entries."""
    row = conn.execute(
        """
        SELECT coalesce((SELECT lookups FROM answer_cache_stats WHERE kb_id = %(id)s), 0),
               coalesce((SELECT hits FROM answer_cache_stats WHERE kb_id = %(id)s), 0),
               (SELECT count(*) FROM answer_cache c JOIN knowledge_bases k ON k.id = c.kb_id
                 WHERE c.kb_id = %(id)s AND c.content_version = k.content_version)
        """, {"id": kb_id}).fetchone()
    assert row is not None
    lookups, hits, entries = int(row[0]), int(row[1]), int(row[2])
    return {"lookups": lookups, "hits": hits, "entries": entries,
            "hit_rate": round(hits / lookups, 3) if lookups else None}
