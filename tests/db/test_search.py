"""Hybrid search against real PostgreSQL + pgvector with the real MiniLM embedder."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import pytest
from pgvector.psycopg import register_vector
from psycopg_pool import ConnectionPool

from store.embedder import Embedder
from store.errors import KnowledgeBaseNotFoundError, ModelMismatchError
from store.facets import kb_facets
from store.fusion import FusionWeights, fuse
from store.ingest import ingest_documents
from store.kb import get_or_create_kb
from store.search import _filter_sql, build_sql, search
from store.tokenize import keyword_text
from store.types import SearchFilters, SourceDocument

pytestmark = pytest.mark.db


def _add(pool: ConnectionPool, kb_name: str, embedder: Embedder, docs: Sequence[dict[str, Any]],
         vectors: np.ndarray | None = None) -> None:
    """Ingest ``docs`` through the real pipeline; with ``vectors``, write one-chunk rows with
    those vectors directly (for corpora too large to embed in a test)."""
    if vectors is None:
        report = ingest_documents(pool, kb_name, [
            SourceDocument(doc_key=d["key"], source=d.get("source", f"/docs/{d['key']}.md"),
                           title=d["title"], text=d["text"],
                           doc_type=d.get("doc_type", "document"),
                           acl=tuple(d.get("acl", ["public"])),
                           metadata={"updated_at": d["updated_at"].isoformat()}
                           if "updated_at" in d else {})
            for d in docs], embedder=embedder)
        assert report.failed == 0, report.errors
        return
    with pool.connection() as conn:
        kb = get_or_create_kb(conn, kb_name, embedder)
        with conn.transaction(), conn.cursor() as cur:
            for d, vec in zip(docs, vectors, strict=True):
                acl = list(d.get("acl", ["public"]))
                updated = d.get("updated_at", datetime.now(UTC))
                doc_type = d.get("doc_type", "document")
                source = d.get("source", f"/docs/{d['key']}.md")
                row = cur.execute(
                    "INSERT INTO documents (kb_id, generation, doc_key, source, title, doc_type, "
                    "content_hash, acl, updated_at) VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s) "
                    "RETURNING id",
                    [kb.id, kb.active_generation, d["key"], source, d["title"], doc_type,
                     hashlib.sha256(d["text"].encode()).hexdigest(), acl, updated],
                ).fetchone()
                assert row is not None
                cur.execute(
                    "INSERT INTO chunks (document_id, kb_id, generation, position, text, "
                    "token_count, tsv, embedding, dim, doc_type, source, acl, updated_at) "
                    "VALUES (%s,%s,%s,0,%s,%s,to_tsvector('simple', %s),%s,%s,%s,%s,%s,%s)",
                    [row[0], kb.id, kb.active_generation, d["text"], len(d["text"].split()),
                     keyword_text(f"{d['title']}\n{d['text']}"), vec, embedder.dim, doc_type,
                     source, acl, updated],
                )


DOCS = [
    {"key": "vpn", "title": "VPN setup", "text": "Install the VPN client and sign in with SSO "
     "to reach the internal network from home.", "doc_type": "howto",
     "source": "/docs/it/vpn.md"},
    {"key": "leave", "title": "Annual leave policy", "text": "Employees get 25 days of paid "
     "annual leave; request leave in the HR portal two weeks ahead.", "doc_type": "policy",
     "source": "/docs/hr/leave.md"},
    {"key": "expenses", "title": "Travel expenses", "text": "Submit travel receipts within 30 "
     "days; hotels above the city limit need approval.", "doc_type": "policy",
     "source": "/docs/finance/expenses.md"},
    {"key": "salary", "title": "Salary bands 2026", "text": "Salary bands for engineering "
     "levels L3 to L7 and the annual leave bonus rules.", "doc_type": "policy",
     "source": "/docs/hr/salary.md", "acl": ["group:hr-leads", "user:U42"]},
    {"key": "redis", "title": "Redis 内存告警处理", "text": "Redis 内存满了时，先检查淘汰策略 "
     "maxmemory-policy，再清理过期键，必要时扩容实例。", "doc_type": "runbook",
     "source": "/docs/ops/redis.md"},
    {"key": "rollback", "title": "变更回滚流程", "text": "生产环境回滚操作需要值班经理二次审批，"
     "审批通过后在发布平台执行回滚。", "doc_type": "policy", "source": "/docs/ops/rollback.md"},
]


@pytest.fixture
def kb(pool: ConnectionPool, embedder: Embedder) -> str:
    _add(pool, "kb", embedder, DOCS)
    return "kb"


def _ids(hits: Sequence[Any]) -> list[str]:
    return [h.doc_id for h in hits]


def test_english_question_finds_its_document_first(pool: ConnectionPool, embedder: Embedder,
                                                   kb: str) -> None:
    hits = search(pool, kb, "how many days of annual leave do I get?", embedder=embedder, k=3)
    assert hits[0].doc_id == "leave"
    assert hits[0].title == "Annual leave policy"
    assert hits[0].source == "/docs/hr/leave.md"
    assert hits[0].dense_rank is not None
    assert hits[0].keyword_rank is not None
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_chinese_query_finds_chinese_document_by_keywords(pool: ConnectionPool,
                                                          embedder: Embedder, kb: str) -> None:
    hits = search(pool, kb, "回滚操作是否需要二次审批？", embedder=embedder, k=3)
    assert hits[0].doc_id == "rollback"
    assert hits[0].keyword_rank == 1
    keyword_only = search(pool, kb, "Redis内存满了怎么办", embedder=embedder, k=3,
                          fusion="keyword")
    assert keyword_only[0].doc_id == "redis"
    assert keyword_only[0].dense_rank is None


def test_restricted_document_is_never_returned_outside_its_access_list(
        pool: ConnectionPool, embedder: Embedder, kb: str) -> None:
    query = "salary bands for engineering levels"
    for principals in (("public",), ("public", "user:U1"), ("public", "group:sales")):
        hits = search(pool, kb, query, embedder=embedder, k=10, principals=principals)
        assert "salary" not in _ids(hits)
        assert len(hits) == len(DOCS) - 1  # everything else is still there
    for principals in (("public", "user:U42"), ("public", "group:hr-leads")):
        hits = search(pool, kb, query, embedder=embedder, k=10, principals=principals)
        assert _ids(hits)[0] == "salary"


def test_filters_on_doc_type_source_and_freshness(pool: ConnectionPool,
                                                   embedder: Embedder) -> None:
    old = datetime(2024, 1, 1, tzinfo=UTC)
    docs = [dict(d, updated_at=old if d["key"] in ("vpn", "leave") else datetime.now(UTC))
            for d in DOCS]
    _add(pool, "f", embedder, docs)
    query = "annual leave days"
    by_type = search(pool, "f", query, embedder=embedder, k=10,
                     filters=SearchFilters(doc_types=("policy",)))
    assert sorted(_ids(by_type)) == ["expenses", "leave", "rollback"]
    by_folder = search(pool, "f", query, embedder=embedder, k=10,
                       filters=SearchFilters(sources=("/docs/hr",)))
    assert _ids(by_folder) == ["leave"]  # salary is under /docs/hr too, but restricted
    exact = search(pool, "f", query, embedder=embedder, k=10,
                   filters=SearchFilters(sources=("/docs/it/vpn.md",)))
    assert _ids(exact) == ["vpn"]
    fresh = search(pool, "f", query, embedder=embedder, k=10,
                   filters=SearchFilters(updated_after=old + timedelta(days=1)))
    assert sorted(_ids(fresh)) == ["expenses", "redis", "rollback"]
    both = search(pool, "f", query, embedder=embedder, k=10,
                  filters=SearchFilters(doc_types=("policy",), updated_after=old))
    assert sorted(_ids(both)) == ["expenses", "rollback"]


def test_doc_ranked_high_on_both_sides_beats_docs_high_on_one(pool: ConnectionPool,
                                                               embedder: Embedder,
                                                               kb: str) -> None:
    hits = search(pool, kb, "VPN client sign in", embedder=embedder, k=6, fusion="rrf")
    dense = sorted((h for h in hits if h.dense_rank), key=lambda h: h.dense_rank or 0)
    keyword = sorted((h for h in hits if h.keyword_rank), key=lambda h: h.keyword_rank or 0)
    ranking = {"dense": [h.chunk_id for h in dense], "keyword": [h.chunk_id for h in keyword]}
    # The SQL fusion is the reference formula, applied to the ranks it reports.
    assert [h.chunk_id for h in hits] == fuse(ranking, {"dense": 1.0, "keyword": 1.0})
    assert hits[0].doc_id == "vpn"
    assert hits[0].dense_rank == 1
    assert hits[0].keyword_rank == 1


def test_filtered_search_still_returns_k_rows(db_url: str, pool: ConnectionPool,
                                              embedder: Embedder) -> None:
    """1,600 chunks, 10% of type "memo", searched through the HNSW index: the index scan
    alone stops at ef_search rows before the filter; iterative scans keep going."""
    rng = np.random.default_rng(7)
    base_texts = [f"weekly status of project {name}: milestones, risks and staffing"
                  for name in ("apollo", "borealis", "cobalt", "delta", "ember", "falcon",
                               "granite", "harbor", "iris", "juniper", "kestrel", "lumen")]
    base = embedder.embed_documents(base_texts)
    # Vectors mixed from real embeddings: realistic neighbourhoods without embedding 1,600 texts.
    mix = rng.dirichlet(np.full(len(base), 0.3), size=1600).astype(np.float32) @ base
    mix /= np.linalg.norm(mix, axis=1, keepdims=True)
    docs = [{"key": f"d{i}", "title": f"Status {i}", "text": base_texts[i % len(base_texts)],
             "doc_type": "memo" if i % 10 == 0 else "report"} for i in range(1600)]
    _add(pool, "big", embedder, docs, vectors=mix)
    with pool.connection() as conn:
        conn.execute("ANALYZE chunks")
        # At this size the planner rightly prefers an exact scan of the KB; make it plan as
        # it does for a large KB, through the HNSW index (for every new connection).
        conn.execute("DROP INDEX chunks_scope")
        dbname = conn.info.dbname
        conn.execute(f'ALTER DATABASE "{dbname}" SET enable_seqscan = off')
        conn.execute(f'ALTER DATABASE "{dbname}" SET enable_bitmapscan = off')
    k = 20
    filters = SearchFilters(doc_types=("memo",))
    query_vec = embedder.embed_query("project risks")
    params: dict[str, Any] = {"kb_id": 1, "principals": ["public"], "n": 50, "wd": 1.0,
                              "wk": 0.0, "rrf_k": 60, "limit": k, "vec": query_vec}
    sql = build_sql(384, FusionWeights(1.0, 0.0), use_keyword=False,
                    where=_filter_sql(filters, params))
    with ConnectionPool(db_url, min_size=1, max_size=2, kwargs={"autocommit": True},
                        configure=register_vector) as index_pool:
        hits = search(index_pool, "big", "project risks", embedder=embedder, k=k,
                      filters=filters, fusion="dense")
        with index_pool.connection() as conn, conn.transaction():
            plan = "\n".join(r[0] for r in conn.execute("EXPLAIN (COSTS OFF) " + sql, params))
            assert "Index Scan using chunks_embedding_hnsw_384" in plan
            # The same statement without iterative scans comes back short.
            conn.execute("SET LOCAL hnsw.iterative_scan = off")
            conn.execute("SET LOCAL hnsw.ef_search = 40")
            short = conn.execute(sql, params).fetchall()
    assert len(hits) == k
    assert all(h.doc_type == "memo" for h in hits)
    assert len(short) < k


def test_search_with_another_model_is_a_mismatch_error(pool: ConnectionPool,
                                                       embedder: Embedder, kb: str) -> None:
    class OtherModel:
        name = "BAAI/bge-m3"
        dim = 1024
        multilingual = True

        def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
            raise AssertionError("must not embed before the model check")

        def embed_query(self, text: str) -> np.ndarray:
            raise AssertionError("must not embed before the model check")

    with pytest.raises(ModelMismatchError, match="ragbot reindex --kb kb"):
        search(pool, kb, "annual leave", embedder=OtherModel(), k=5)


def test_unknown_kb_is_a_clear_error(pool: ConnectionPool, embedder: Embedder) -> None:
    with pytest.raises(KnowledgeBaseNotFoundError, match="ragbot ingest PATH --kb nope"):
        search(pool, "nope", "anything", embedder=embedder)


def test_stopword_only_query_still_gets_dense_results(pool: ConnectionPool,
                                                      embedder: Embedder, kb: str) -> None:
    hits = search(pool, kb, "what is the", embedder=embedder, k=3)
    assert len(hits) == 3
    assert all(h.keyword_rank is None for h in hits)


def test_facets_list_only_what_the_principals_may_read(pool: ConnectionPool,
                                                      embedder: Embedder, kb: str) -> None:
    public = kb_facets(pool, kb)
    assert public["doc_types"] == ["howto", "policy", "runbook"]
    assert "Salary bands 2026" not in public["titles"]
    assert "/docs/ops/redis.md" in public["sources"]
    hr = kb_facets(pool, kb, ("public", "group:hr-leads"))
    assert "Salary bands 2026" in hr["titles"]


def test_a_hit_carries_its_documents_own_date(pool: ConnectionPool, embedder: Embedder) -> None:
    report = ingest_documents(pool, "dated", [
        SourceDocument(doc_key="regatta", source="/news/regatta.md", title="Harbour regatta",
                       text="The harbour regatta drew forty boats to the bay.",
                       metadata={"date": "2025-06-01"}),
        SourceDocument(doc_key="ferry", source="/news/ferry.md", title="Harbour ferry",
                       text="The harbour ferry runs every twenty minutes.")], embedder=embedder)
    assert report.failed == 0, report.errors
    hits = search(pool, "dated", "harbour regatta boats", embedder=embedder, k=2)
    assert {h.doc_id: h.date for h in hits} == {"regatta": "2025-06-01", "ferry": ""}
