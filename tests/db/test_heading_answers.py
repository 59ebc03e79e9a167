"""Ingested Markdown whose headings carry the question's words: an FAQ written as
"### question?" above its answer, a handbook section whose body never repeats its heading's
noun. Real Postgres, the real embedder, the whole offline graph."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from psycopg_pool import ConnectionPool

from agent.api import Question, build_agent
from store.ingest import ingest_paths

pytestmark = [pytest.mark.db, pytest.mark.model]

FAQ = """# Remote access FAQ

### Why is the tunnel sluggish on hotel wifi?

Hotels throttle UDP traffic. Switch the client to TCP on port 443.

### Can I print from home?

No. Printing needs a device on the office network.
"""

HANDBOOK = """# 员工手册

## 病假

每年可享受十二天带薪休息，须提交医院开具的证明。

## 婚假

员工结婚可休三天，须在登记后一年内休完。
"""


@pytest.fixture
def kb_pool(pool: ConnectionPool, embedder: Any, tmp_path: Path) -> ConnectionPool:
    (tmp_path / "remote-faq.md").write_text(FAQ, encoding="utf-8")
    (tmp_path / "handbook.md").write_text(HANDBOOK, encoding="utf-8")
    ingest_paths(pool, "headings", sorted(tmp_path.glob("*.md")), embedder=embedder)
    return pool


def ask(pool: ConnectionPool, embedder: Any, text: str, thread: str) -> Any:
    agent = build_agent(pool, embedder)
    return agent.ask(Question(text=text, thread_id=thread, kb="headings"))


def test_questions_their_headings_ask_are_answered(kb_pool: ConnectionPool,
                                                   embedder: Any) -> None:
    faq = ask(kb_pool, embedder, "Why is the tunnel sluggish on hotel wifi?", "h1")
    assert not faq.refused
    assert "TCP on port 443" in faq.text
    leave = ask(kb_pool, embedder, "病假有多少天？", "h2")
    assert not leave.refused
    assert "十二天" in leave.text


def test_a_heading_word_alone_does_not_answer_a_value_the_section_lacks(
        kb_pool: ConnectionPool, embedder: Any) -> None:
    assert ask(kb_pool, embedder, "病假期间的工资扣减比例是多少？", "h3").refused
