"""How many of a KB's documents hold a word (store.kb_vocab.document_spread), counted through
the keyword index: Chinese words as jieba cuts them in the documents, documents the asker
may not read left out."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from psycopg_pool import ConnectionPool

from store.kb import get_or_create_kb
from store.kb_vocab import document_spread
from store.tokenize import keyword_text

pytestmark = pytest.mark.db

# (text of the document's passages, its access list)
DOCS = [
    (["员工年假申请需提前三个工作日在系统提交。", "Annual leave is requested in the HR system."],
     ["public"]),
    (["差旅报销申请表请在月底前交给财务。"], ["public"]),
    (["The VPN client must be updated before remote work.", "年假期间的值班安排由组长决定。"],
     ["hr"]),
]


def _load(pool: ConnectionPool, embedder: Any) -> int:
    rng = np.random.default_rng(5)
    with pool.connection() as conn:
        kb = get_or_create_kb(conn, "vocab", embedder)
        for i, (texts, acl) in enumerate(DOCS):
            row = conn.execute(
                "INSERT INTO documents (kb_id, generation, doc_key, source, title, "
                "content_hash, acl) VALUES (%s, %s, %s, %s, %s, md5(%s), %s) RETURNING id",
                [kb.id, kb.active_generation, f"d{i}", f"/docs/d{i}.md", f"Doc {i}", str(i),
                 acl]).fetchone()
            assert row is not None
            for position, text in enumerate(texts):
                conn.execute(
                    "INSERT INTO chunks (document_id, kb_id, generation, position, text, "
                    "token_count, tsv, embedding, dim, doc_type, source, acl, updated_at) "
                    "VALUES (%s, %s, %s, %s, %s, 5, to_tsvector('simple', %s), %s, %s, "
                    "'document', %s, %s, now())",
                    [row[0], kb.id, kb.active_generation, position, text, keyword_text(text),
                     rng.standard_normal(embedder.dim).astype(np.float32), embedder.dim,
                     f"/docs/d{i}.md", acl])
        return kb.id


def test_documents_holding_each_word_as_the_asker_may_read_them(
        pool: ConnectionPool, embedder: Any) -> None:
    kb_id = _load(pool, embedder)
    words = ["年假", "leave", "申请表", "vpn", "报销", "停车"]
    with pool.connection() as conn:
        total, held = document_spread(conn, kb_id, words, ["public"])
        assert total == 2
        assert held == {"年假": 1, "leave": 1, "申请表": 1, "vpn": 0, "报销": 1, "停车": 0}
        total, held = document_spread(conn, kb_id, words, ["public", "hr"])
        assert total == 3
        assert held["年假"] == 2
        assert held["vpn"] == 1
