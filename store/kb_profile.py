"""What each knowledge base is about: an admin's description and a summary derived from its
public documents' titles and most distinctive terms (refreshed on every ingest and reindex).

Both are shown by ``ragbot kb list`` / ``kb status`` and read by the router that decides which
KBs a question searches (``agent.kb_route``). The summary reads public documents only: it is
shown to people and sent to an LLM router, so a restricted title or term never appears in it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import psycopg
import structlog

from store.kb import get_kb
from store.tokenize import STOPWORDS

MAX_DESCRIPTION = 500
SUMMARY_TITLES = 6
SUMMARY_TERMS = 12
_CANDIDATE_TERMS = 200  # the KB's most frequent terms, ranked by how distinctive they are
_DF_CAP = 5000  # enough to tell common from rare in other KBs, bounded per term

log = structlog.get_logger(__name__)


@dataclass(frozen=True)
class KbProfile:
    name: str
    description: str
    summary: str

    @property
    def text(self) -> str:
        """What the router reads: the description, else the derived summary."""
        return self.description or self.summary


def set_description(conn: psycopg.Connection[Any], name: str, text: str) -> None:
    """Record the admin's description of KB ``name`` (empty text clears it)."""
    text = " ".join(text.split())
    if len(text) > MAX_DESCRIPTION:
        raise ValueError(f"the description of {name!r} has {len(text)} characters; keep it "
                         f"under {MAX_DESCRIPTION} (one or two sentences)")
    kb = get_kb(conn, name)  # KnowledgeBaseNotFoundError names the fix
    conn.execute("UPDATE knowledge_bases SET description = %s WHERE id = %s", [text, kb.id])


def profiles(conn: psycopg.Connection[Any], names: list[str] | None = None
             ) -> dict[str, KbProfile]:
    """Description and summary of the KBs ``names`` (every KB when None)."""
    rows = conn.execute(
        "SELECT name, description, summary FROM knowledge_bases "
        "WHERE %(all)s OR name = ANY(%(names)s) ORDER BY name",
        {"all": names is None, "names": list(names or [])}).fetchall()
    return {r[0]: KbProfile(name=r[0], description=r[1], summary=r[2]) for r in rows}


def refresh_summary(conn: psycopg.Connection[Any], kb_id: int) -> str:
    """Derive and store KB ``kb_id``'s summary from its active public documents."""
    titles = [r[0] for r in conn.execute(
        "SELECT title FROM documents d JOIN knowledge_bases k ON k.id = d.kb_id "
        "AND d.generation = k.active_generation WHERE d.kb_id = %s AND d.is_latest "
        "AND 'public' = ANY(d.acl) AND title <> '' ORDER BY d.updated_at DESC, title LIMIT %s",
        [kb_id, SUMMARY_TITLES]).fetchall()]
    terms = distinctive_terms(conn, kb_id, SUMMARY_TERMS)
    summary = "; ".join(titles)
    if terms:
        summary += (" — " if summary else "") + ", ".join(terms)
    conn.execute("UPDATE knowledge_bases SET summary = %s WHERE id = %s", [summary, kb_id])
    return summary


def refresh_summary_logged(conn: psycopg.Connection[Any], kb_id: int) -> None:
    """``refresh_summary`` after an ingest or reindex: a failure is logged, and the documents
    just stored stay stored (the summary is refreshed again by the next ingest)."""
    try:
        with conn.transaction():
            refresh_summary(conn, kb_id)
    except psycopg.Error:
        log.exception("kb_summary_failed", kb_id=kb_id)


def distinctive_terms(conn: psycopg.Connection[Any], kb_id: int, limit: int) -> list[str]:
    """The terms of the KB's public passages that set it apart from the other KBs: frequent
    here and rare elsewhere (a term's share of passages here against its share in the other
    KBs); with no other KB, frequent terms that are not in every passage."""
    row = conn.execute("SELECT active_generation FROM knowledge_bases WHERE id = %s",
                       [kb_id]).fetchone()
    if row is None:
        return []
    # ts_stat takes a query text: both values are integers from the database.
    inner = (f"SELECT tsv FROM chunks WHERE kb_id = {int(kb_id)} AND generation = "
             f"{int(row[0])} AND 'public' = ANY(acl)")
    total_row = conn.execute(
        "SELECT count(*) FROM chunks WHERE kb_id = %s AND generation = %s "
        "AND 'public' = ANY(acl)", [kb_id, row[0]]).fetchone()
    total = int(total_row[0]) if total_row else 0
    if total == 0:
        return []
    stats = conn.execute(
        "SELECT word, ndoc, nentry FROM ts_stat(%s) ORDER BY ndoc DESC, nentry DESC, word "
        "LIMIT %s",
        [inner, _CANDIDATE_TERMS * 3]).fetchall()
    words = [(str(w), int(n), int(e)) for w, n, e in stats
             if _is_topic_word(str(w))][:_CANDIDATE_TERMS]
    if not words:
        return []
    other_df, other_total = _other_frequencies(conn, kb_id, [w for w, _, _ in words])
    scored = []
    for word, ndoc, entries in words:
        here = ndoc / total
        if other_total:
            there = other_df.get(word, 0) / other_total
            score = here * math.log((here + 1 / total) / (there + 1 / other_total))
        else:
            score = here * math.log(1 + total / ndoc)
        # a word repeated within its passages is more of a topic than one said in passing
        scored.append((-score * math.log(1 + entries / ndoc), word))
    return [w for s, w in sorted(scored) if s < 0][:limit]


def _is_topic_word(word: str) -> bool:
    return (word not in STOPWORDS and not word.isdigit()
            and (len(word) > 2 or not word.isascii()))


def _other_frequencies(conn: psycopg.Connection[Any], kb_id: int, words: list[str]
                       ) -> tuple[dict[str, int], int]:
    """How many active passages of the other KBs hold each word (capped), and how many
    passages they have."""
    rows = conn.execute(
        """
        SELECT w, (SELECT count(*) FROM (SELECT 1 FROM chunks c JOIN knowledge_bases k
                   ON k.id = c.kb_id AND c.generation = k.active_generation
                   WHERE c.kb_id <> %(kb)s AND c.tsv @@ to_tsquery('simple', quote_literal(w))
                   LIMIT %(cap)s) s)
        FROM unnest(%(words)s::text[]) AS w
        """, {"kb": kb_id, "words": words, "cap": _DF_CAP}).fetchall()
    total = conn.execute(
        "SELECT coalesce(sum(g.chunk_count), 0) FROM knowledge_bases k JOIN generations g "
        "ON g.kb_id = k.id AND g.generation = k.active_generation WHERE k.id <> %s",
        [kb_id]).fetchone()
    return {str(w): int(n) for w, n in rows}, int(total[0]) if total else 0
