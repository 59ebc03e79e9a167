"""How many passages hold a translation word (store.kb_vocab.document_frequencies): a Chinese
word where the text holds it, found through the keyword index rather than a read of every
passage."""

from __future__ import annotations

from typing import Any

import pytest
from psycopg_pool import ConnectionPool

from store.kb import get_or_create_kb
from store.kb_vocab import COUNTS_SQL, document_frequencies
from store.tokenize import tsquery
from tests.databases import keyword_lines

pytestmark = pytest.mark.db

# Mixed documents; jieba cuts some words differently in context ("审批表格" is 审批 / 表格,
# so the index never holds 审批表 there).
TEXTS = [
    "请填写审批表格后提交给部门经理。",
    "合同审批表由法务部保管。",
    "员工差旅标准见附件，差旅费用按月结算。",
    "Travel expenses are settled monthly; 出差前请先在系统登记。",
    "备份数据库前先停止写入，Backups run nightly.",
    "新库存数据库上线后，旧系统只读。",
    "The VPN client must be updated before remote work.",
]


def _scan_count(conn: Any, kb_id: int, word: str) -> int:
    row = conn.execute(
        "SELECT count(*) FROM chunks c JOIN knowledge_bases k ON c.kb_id = k.id "
        "AND c.generation = k.active_generation WHERE k.id = %s AND strpos(c.text, %s) > 0",
        [kb_id, word]).fetchone()
    assert row is not None
    return int(row[0])


def test_chinese_word_counts_equal_a_scan_of_the_texts(
        pool: ConnectionPool, embedder: Any) -> None:
    with pool.connection() as conn:
        kb = get_or_create_kb(conn, "counts", embedder)
        for i, text in enumerate(TEXTS):
            keyword_lines(conn, kb, f"d{i}", [text], embedder, seed=len(f"d{i}"))
        words = ["审批表", "差旅", "差旅费", "数据库", "库存", "年假", "vpn", "monthly"]
        df, total = document_frequencies(conn, [kb.id], words)
        assert total == len(TEXTS)
        for word in words[:6]:
            assert df[word] == _scan_count(conn, kb.id, word), word
        # "审批表格" holds 审批表 only as text: all its tokens ANDed would miss it.
        assert df["审批表"] == 2
        assert {w: df[w] for w in words[1:]} == {"差旅": 1, "差旅费": 1, "数据库": 2, "库存": 1,
                                                "年假": 0, "vpn": 1, "monthly": 1}


def test_a_chinese_word_is_counted_through_the_keyword_index(
        pool: ConnectionPool, embedder: Any) -> None:
    with pool.connection() as conn:
        kb = get_or_create_kb(conn, "large", embedder)
        keyword_lines(conn, kb, "base", TEXTS, embedder, seed=len("base"))
        # Enough passages that reading them all costs more than the index: the planner's
        # choice, not a forced one.
        conn.execute(
            "INSERT INTO chunks (document_id, kb_id, generation, position, text, token_count, "
            "tsv, embedding, dim, doc_type, source, acl, updated_at) SELECT c.document_id, "
            "c.kb_id, c.generation, 100 + i, t, 5, to_tsvector('simple', t), c.embedding, "
            "c.dim, 'document', c.source, c.acl, now() FROM chunks c, generate_series(1, 20000) "
            "i, LATERAL (SELECT 'routine maintenance note ' || i || ' for server rack ' || "
            "(i %% 97) AS t) x WHERE c.kb_id = %s AND c.position = 0",
            [kb.id])
        conn.execute("ANALYZE chunks")
        params = {"kbs": [kb.id], "latin": [], "other": ["审批表"],
                  "queries": [tsquery("审批表", any_word=True)]}
        plan = "\n".join(r[0] for r in conn.execute("EXPLAIN " + COUNTS_SQL, params))
        # The Chinese words' leg (the Latin one already went through the index).
        chinese = plan[plan.index("Function Scan on u"):]
        assert "Index Scan on chunks_tsv" in chinese, plan
        assert "Seq Scan on chunks" not in chinese, plan
        df, total = document_frequencies(conn, [kb.id], ["审批表"])
        assert (df, total) == ({"审批表": 2}, len(TEXTS) + 20000)
