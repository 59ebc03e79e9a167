"""Thread memory across processes and concurrent turns of one thread."""

from __future__ import annotations

import threading
import time

import pytest

from agent.api import Question, build_agent
from agent.engine import OfflineEngine
from agent.state import Understanding, UnderstandInput
from store.types import SourceDocument

pytestmark = [pytest.mark.db, pytest.mark.model]

KB = "memory-test"
DOCS = [
    SourceDocument(doc_key="redis", source="kb/redis.md", title="Redis 内存满了怎么办",
                   fmt="markdown", text=(
                       "# Redis 内存满了怎么办\n\n"
                       "Redis 内存满了时写入失败，检查淘汰策略并清理大 key。\n\n"
                       "## 开启持久化时\n\n开启了持久化仍然不行，应迁移到 Redis 集群模式。\n")),
    SourceDocument(doc_key="vpn", source="kb/vpn.md", title="VPN setup", fmt="markdown",
                   text="# VPN setup\n\nThe VPN server address is vpn.lanting.example.\n"),
]


@pytest.fixture
def kb_pool(pool, embedder):  # type: ignore[no-untyped-def]
    from store.ingest import ingest_documents

    ingest_documents(pool, KB, list(DOCS), embedder=embedder)
    return pool


def test_conversation_continues_after_a_restart(db_url, kb_pool, embedder) -> None:  # type: ignore[no-untyped-def]
    from store.db import open_pool

    first = build_agent(kb_pool, embedder)
    first.ask(Question(text="Redis内存满了怎么办", thread_id="slack:T:C:1", kb=KB))
    first.close()
    kb_pool.close()
    # A new process: its own pool, its own checkpointer, same database.
    pool2 = open_pool(db_url, max_size=4)
    try:
        second = build_agent(pool2, embedder)
        result = second.ask(Question(text="如果用了持久化还不行呢", thread_id="slack:T:C:1", kb=KB))
        second.close()
    finally:
        pool2.close()
    assert result.rewritten_query is not None
    assert "redis" in result.rewritten_query.lower()
    assert [c.doc_id for c in result.citations][:1] == ["redis"]


class _SlowFirstTurn(OfflineEngine):
    """Holds the first question in ``understand`` long enough for the second to arrive."""

    def __init__(self, slow_question: str) -> None:
        self.slow_question = slow_question
        self.started = threading.Event()
        self.order: list[str] = []

    def understand(self, inp: UnderstandInput) -> Understanding:
        self.order.append(inp["question"])
        if inp["question"] == self.slow_question:
            self.started.set()
            time.sleep(1.0)
        return super().understand(inp)


def test_two_concurrent_turns_in_one_thread_are_answered_in_order(kb_pool, embedder) -> None:  # type: ignore[no-untyped-def]
    engine = _SlowFirstTurn("Redis内存满了怎么办")
    agent = build_agent(kb_pool, embedder, engine=engine)
    results: dict[str, object] = {}

    def turn(text: str) -> None:
        results[text] = agent.ask(Question(text=text, thread_id="th", kb=KB))

    first = threading.Thread(target=turn, args=("Redis内存满了怎么办",))
    second = threading.Thread(target=turn, args=("如果用了持久化还不行呢",))
    try:
        first.start()
        assert engine.started.wait(30)
        second.start()
        first.join(60)
        second.join(60)
    finally:
        agent.close()
    assert engine.order == ["Redis内存满了怎么办", "如果用了持久化还不行呢"]
    follow = results["如果用了持久化还不行呢"]
    # The second turn saw the first one's memory: it ran after it, not beside it.
    assert follow.rewritten_query is not None  # type: ignore[attr-defined]
    assert "redis" in follow.rewritten_query.lower()  # type: ignore[attr-defined]
