"""How much of each knowledge base speaks of a question's words: per KB, how many of its
active passages the asker may read hold each word (or all words of a phrase), for routing;
and how many passages of a set of KBs hold each translation word (store.crosslang)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import psycopg

from store.tokenize import tsquery
from store.types import PUBLIC

# Enough to tell a KB's topic words from its rare ones; bounds each index scan.
HELD_CAP = 2000


def held_counts(conn: psycopg.Connection[Any], kb_id: int, phrases: Sequence[str],
                principals: Sequence[str]) -> tuple[int, dict[str, int]]:
    """(the KB's active passages, per phrase how many of those ``principals`` may read hold
    it, capped at :data:`HELD_CAP`)."""
    queries = {p: q for p in dict.fromkeys(phrases) if (q := tsquery(p)) is not None}
    total_row = conn.execute(
        "SELECT coalesce(g.chunk_count, 0) FROM knowledge_bases k JOIN generations g "
        "ON g.kb_id = k.id AND g.generation = k.active_generation WHERE k.id = %s",
        [kb_id]).fetchone()
    total = int(total_row[0]) if total_row else 0
    if not queries:
        return total, {}
    rows = conn.execute(
        """
        WITH g AS (SELECT active_generation AS gen FROM knowledge_bases WHERE id = %(kb)s)
        SELECT p, (SELECT count(*) FROM (SELECT 1 FROM chunks c, g
                   WHERE c.kb_id = %(kb)s AND c.generation = g.gen
                   AND c.acl && %(principals)s::text[]
                   AND c.tsv @@ to_tsquery('simple', q) LIMIT %(cap)s) s)
        FROM unnest(%(phrases)s::text[], %(queries)s::text[]) AS u(p, q)
        """, {"kb": kb_id, "principals": list(principals) or [PUBLIC], "cap": HELD_CAP,
              "phrases": list(queries), "queries": list(queries.values())}).fetchall()
    return total, {str(p): int(n) for p, n in rows}


def document_spread(conn: psycopg.Connection[Any], kb_id: int, words: Sequence[str],
                    principals: Sequence[str]) -> tuple[int, dict[str, int]]:
    """(the KB's latest documents ``principals`` may read, per word how many of those hold
    it, counted over at most :data:`HELD_CAP` passages). A word is matched as the index
    holds it: all its search-mode tokens (the index keeps jieba's cut, which may split a
    Chinese word the question keeps whole), through the keyword index, so the count costs an
    index scan however large the KB."""
    queries = {w: q for w in dict.fromkeys(words) if (q := tsquery(w)) is not None}
    rows = conn.execute(
        """
        WITH g AS (SELECT active_generation AS gen FROM knowledge_bases WHERE id = %(kb)s)
        SELECT NULL, (SELECT count(*) FROM documents d, g WHERE d.kb_id = %(kb)s
                      AND d.generation = g.gen AND d.is_latest
                      AND d.acl && %(principals)s::text[])
        UNION ALL
        SELECT w, (SELECT count(DISTINCT document_id) FROM (SELECT c.document_id
                   FROM chunks c, g WHERE c.kb_id = %(kb)s AND c.generation = g.gen
                   AND c.acl && %(principals)s::text[]
                   AND c.tsv @@ to_tsquery('simple', q) LIMIT %(cap)s) s)
        FROM unnest(%(words)s::text[], %(queries)s::text[]) AS u(w, q)
        """, {"kb": kb_id, "principals": list(principals) or [PUBLIC], "cap": HELD_CAP,
              "words": list(queries), "queries": list(queries.values())}).fetchall()
    total = next((int(n) for w, n in rows if w is None), 0)
    return total, {str(w): int(n) for w, n in rows if w is not None}


# Per word, how many of the KBs' active passages hold it (at most 5000: enough to tell a
# common word): Latin words as the index holds them, other words as the text holds them
# among the passages the index finds by any of their tokens (``document_frequencies``).
COUNTS_SQL = """
    WITH g AS (SELECT id, active_generation AS gen FROM knowledge_bases
               WHERE id = ANY(%(kbs)s))
    SELECT w, (SELECT count(*) FROM (SELECT 1 FROM chunks c JOIN g
               ON c.kb_id = g.id AND c.generation = g.gen
               WHERE c.tsv @@ to_tsquery('simple', quote_literal(w)) LIMIT 5000) s)
    FROM unnest(%(latin)s::text[]) AS w
    UNION ALL
    SELECT w, (SELECT count(*) FROM (SELECT 1 FROM chunks c JOIN g
               ON c.kb_id = g.id AND c.generation = g.gen
               WHERE c.tsv @@ to_tsquery('simple', q) AND strpos(c.text, w) > 0
               LIMIT 5000) s)
    FROM unnest(%(other)s::text[], %(queries)s::text[]) AS u(w, q)
"""


def document_frequencies(conn: Any, kb_ids: Sequence[int], words: Sequence[str]
                         ) -> tuple[dict[str, int], int]:
    """How many of the KBs' active passages hold each word (capped), and how many they have.

    A Chinese word counts where the text holds it (``strpos``): the index has jieba's cut
    of it, which may split a word the dictionary knows ("年假"). The keyword index finds the
    passages to look at first (any of the word's search-mode tokens), so a rare word costs an
    index scan, not a read of every passage; a passage jieba cut so that none of the word's
    tokens is indexed ("业务方回滚" as 方回 / 滚) is missed."""
    latin = [w for w in words if w.isascii()]
    other = {w: q for w in dict.fromkeys(words) if not w.isascii()
             and (q := tsquery(w, any_word=True)) is not None}
    rows = conn.execute(COUNTS_SQL, {"kbs": list(kb_ids), "latin": latin, "other": list(other),
                                     "queries": list(other.values())}).fetchall()
    total = conn.execute(
        "SELECT count(*) FROM chunks c JOIN knowledge_bases k ON c.kb_id = k.id "
        "AND c.generation = k.active_generation WHERE k.id = ANY(%s)",
        [list(kb_ids)]).fetchone()
    return {str(w): int(n) for w, n in rows}, int(total[0]) if total else 0
