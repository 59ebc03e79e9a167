"""Which query terms select the chunks the keyword side ranks (store.search.select_terms),
against real PostgreSQL statistics: rare terms select, common ones only score, and a corpus
small enough for every term to fit the budget is ranked exactly as before (exhaustively)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest
from psycopg_pool import ConnectionPool

from store import term_stats
from store.embedding import Embedder
from store.fusion import RRF_K, FusionWeights
from store.kb import get_or_create_kb
from store.search import (
    KEYWORD_RANKED_ROWS,
    build_sql,
    keyword_params,
    search,
    select_terms,
    tsquery_text,
)
from store.tokenize import keyword_text, query_terms

pytestmark = pytest.mark.db


def _load(pool: ConnectionPool, embedder: Embedder, texts: Sequence[str]) -> None:
    """One chunk per text in KB "kw" (random vectors: only the keyword side is under test),
    then ANALYZE, as autovacuum would after a large ingest."""
    rng = np.random.default_rng(3)
    vectors = rng.standard_normal((len(texts), embedder.dim)).astype(np.float32)
    with pool.connection() as conn:
        kb = get_or_create_kb(conn, "kw", embedder)
        with conn.transaction(), conn.cursor() as cur:
            cur.execute(
                "INSERT INTO documents (kb_id, generation, doc_key, source, title, content_hash) "
                "SELECT %s, %s, 'd' || g, '/docs/d' || g || '.md', 'Note ' || g, md5(g::text) "
                "FROM generate_series(0, %s - 1) g", [kb.id, kb.active_generation, len(texts)])
            cur.executemany(
                "INSERT INTO chunks (document_id, kb_id, generation, position, text, token_count, "
                "tsv, embedding, dim, doc_type, source, acl, updated_at) SELECT d.id, d.kb_id, "
                "d.generation, 0, %s, 5, to_tsvector('simple', %s), %s, %s, 'document', "
                "d.source, '{public}', now() "
                "FROM documents d WHERE d.kb_id = %s AND d.doc_key = %s",
                [(t, keyword_text(t), v, embedder.dim, kb.id, f"d{i}")
                 for i, (t, v) in enumerate(zip(texts, vectors, strict=True))])
        conn.execute("ANALYZE chunks")


def _keyword_ids(pool: ConnectionPool, query: str, *, budget: int | None, k: int = 10
                 ) -> list[int]:
    """The keyword side's top ``k`` chunk ids as search() ranks them, with ``budget``."""
    with pool.connection() as conn:
        kb_row = conn.execute("SELECT id FROM knowledge_bases WHERE name = 'kw'").fetchone()
        assert kb_row is not None
        params: dict[str, Any] = {"kb_id": kb_row[0], "principals": ["public"], "n": 50,
                                  "wd": 0.0, "wk": 1.0, "rrf_k": RRF_K, "limit": k}
        params.update(keyword_params(conn, query_terms(query), budget=budget))
        sql = build_sql(384, FusionWeights(0.0, 1.0), use_keyword=True, where="")
        return [r[0] for r in conn.execute(sql, params, prepare=False).fetchall()]


# 2,500 status notes: "quarterly" in 2,400 of them, "review" in 2,250, "heliotrope" in 3
# (two of which also say "quarterly"), and a word of its own in each.
NOTES = [" ".join(w for w in (
    "quarterly" if i % 25 else "",
    "review" if i % 10 else "",
    "heliotrope" if i in (25, 1234, 2001) else "",
    f"item{i}",
) if w) for i in range(2500)]


def test_common_word_scores_the_rare_words_chunks_but_selects_none(
        pool: ConnectionPool, embedder: Embedder) -> None:
    _load(pool, embedder, NOTES)
    with pool.connection() as conn:
        chosen = select_terms(conn, ["quarterly", "heliotrope"])
    assert chosen.match == "'heliotrope'"
    common_df = chosen.known_df[0]
    assert chosen.known_df[1] is None  # counted by the query itself
    assert common_df is not None
    assert 2300 < common_df < 2500  # ANALYZE's estimate
    hits = search(pool, "kw", "quarterly heliotrope", embedder=embedder, k=10,
                  fusion="keyword")
    # only the three heliotrope notes, in the order of the exhaustive ranking's top three
    # (where "quarterly" selects too and its document frequency is counted exactly)
    assert sorted(h.doc_id for h in hits) == ["d1234", "d2001", "d25"]
    query = "quarterly heliotrope"
    assert _keyword_ids(pool, query, budget=KEYWORD_RANKED_ROWS) == \
        _keyword_ids(pool, query, budget=None)[:3]


def test_when_every_term_is_common_the_rarest_selects_or_both_rarest_together(
        pool: ConnectionPool, embedder: Embedder) -> None:
    _load(pool, embedder, NOTES)
    with pool.connection() as conn:
        alone = select_terms(conn, ["quarterly", "review"])
        both = select_terms(conn, ["quarterly", "review"], budget=100)  # 10 budgets: 1,000
    assert alone.match == "'review'"  # over the budget of 2,000, but the rarest
    assert both.match == "'review' & 'quarterly'"  # rarer first
    assert all(df is not None for df in both.known_df)
    ids = _keyword_ids(pool, "quarterly review", budget=100, k=20)
    assert len(ids) == 20
    with pool.connection() as conn:
        texts = [r[0] for r in conn.execute("SELECT text FROM chunks WHERE id = ANY(%s)",
                                            [ids]).fetchall()]
    assert all("quarterly" in t and "review" in t for t in texts)


def test_budget_admits_listed_terms_rarest_first(pool: ConnectionPool,
                                                 embedder: Embedder) -> None:
    _load(pool, embedder, NOTES)
    with pool.connection() as conn:
        assert select_terms(conn, ["review", "heliotrope", "quarterly"],
                            budget=2300).match == "'review' | 'heliotrope'"
        assert select_terms(conn, ["review", "heliotrope", "quarterly"],
                            budget=100).match == "'heliotrope'"


# A small knowledge base: every term fits the budget, so nothing changes for it.
SMALL = [
    "Badge access to the lab opens at seven; visitors sign the paper log at reception.",
    "The lab printer on floor two jams on glossy paper; use the matte stock instead.",
    "Reception keeps spare badges for staff who forgot theirs; return them by evening.",
    "Visitors may not bring laptops into the clean room of the lab without approval.",
    "Glossy brochures for the open day are stored in the cabinet behind reception.",
    "Floor two kitchen is closed on Fridays for cleaning; use the floor three kitchen.",
    "Paper towels and soap for the kitchens are ordered by the office manager monthly.",
    "Approval for a laptop in the clean room comes from the lab safety officer.",
    "Evening access after nine needs the security desk to enable your badge.",
    "The office manager handles visitor parking passes, issued at reception on arrival.",
]


@pytest.mark.parametrize("query", [
    "badge access for visitors in the evening",
    "glossy paper printer jams floor two",
    "laptop approval clean room lab",
    "kitchen cleaning office manager",
])
def test_small_corpus_is_ranked_exhaustively(pool: ConnectionPool, embedder: Embedder,
                                             query: str) -> None:
    _load(pool, embedder, SMALL * 3)  # 30 chunks: each word in at most 12 of them
    with pool.connection() as conn:
        assert select_terms(conn, query_terms(query)).match == tsquery_text(query_terms(query))
    ranked = _keyword_ids(pool, query, budget=KEYWORD_RANKED_ROWS)
    assert ranked  # the query shares words with the notes
    assert ranked == _keyword_ids(pool, query, budget=None)


def test_statistics_are_read_once_per_analyze(pool: ConnectionPool, embedder: Embedder,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """The 10,000-word list is read from pg_stats again only after the table is analyzed,
    and what the new ANALYZE says is what selects."""
    _load(pool, embedder, NOTES)
    reads = []
    read_list = term_stats._read_list
    monkeypatch.setattr(term_stats, "_read_list",
                        lambda conn: reads.append(1) or read_list(conn))
    with pool.connection() as conn:
        for _ in range(3):
            assert select_terms(conn, ["quarterly", "heliotrope"]).match == "'heliotrope'"
    assert len(reads) <= 1  # at most once: an earlier search may already have read it
    before = len(reads)
    with pool.connection() as conn:
        # the rare word becomes the commonest one, and "quarterly" disappears
        conn.execute("UPDATE chunks SET tsv = to_tsvector('simple', "
                     "'heliotrope ' || replace(text, 'quarterly', ''))")
        conn.execute("ANALYZE chunks")
        assert select_terms(conn, ["quarterly", "heliotrope"]).match == "'quarterly'"
        assert select_terms(conn, ["quarterly", "heliotrope"]).match == "'quarterly'"
    assert len(reads) == before + 1
