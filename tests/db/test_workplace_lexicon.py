"""The workplace lexicon (store/lexicon.tsv) bridges the two languages where CC-CEDICT does
not: office words it lacks (封网 "change freeze", 内网 "intranet") and senses its many
others hide ("release" glosses a dozen headwords), in the keyword search, the translations
the answer rules read, and a whole answer through the real graph (real Postgres)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from psycopg_pool import ConnectionPool

from agent.api import Agent, Question
from store.crosslang import Translator
from store.embedder import Embedder
from store.kb import get_or_create_kb
from store.search import search
from store.tokenize import query_terms
from tests.databases import files_agent, keyword_lines

pytestmark = pytest.mark.db

# A mixed KB of one-line passages: Chinese rules and English notes.
TEXTS = [
    "每次大促前一周开始封网，封网期间只允许紧急修复。",
    "年假需提前三个工作日申请。",
    "报销需在费用发生后六十天内提交。",
    "新员工入职当天领取电脑。",
    "服务器磁盘空间不足时先清理日志。",
    "常规版本每周二晚上上线。",
    "If the intranet does not load, clear the browser cache first.",
    "Printers on the third floor need a badge.",
    "Meeting rooms are booked in the calendar.",
    "The canteen opens at half past eleven.",
    "Guests sign in at the front desk.",
    "Parking permits are renewed in January.",
    "Releases are announced in the engineering channel.",
    "The booking portal is online around the clock.",
]


@pytest.fixture
def kb(pool: ConnectionPool, embedder: Any) -> str:
    with pool.connection() as conn:
        keyword_lines(conn, get_or_create_kb(conn, "office", embedder), "mixed", TEXTS,
                      embedder, seed=5)
    return "office"


def _translations(pool: ConnectionPool, query: str) -> dict[str, list[str]]:
    with pool.connection() as conn:
        kb_id = conn.execute("SELECT id FROM knowledge_bases WHERE name = 'office'").fetchone()
        assert kb_id is not None
        return Translator().translations(conn, [kb_id[0]], query, query_terms(query))


def _top(pool: ConnectionPool, kb: str, query: str, embedder: Embedder) -> str:
    hits = search(pool, kb, query, embedder=embedder, k=3, fusion="keyword",
                  translator=Translator())
    assert hits, query
    return hits[0].text


def test_an_english_phrase_only_the_lexicon_knows_finds_the_chinese_rule(
        pool: ConnectionPool, kb: str, embedder: Embedder) -> None:
    # CC-CEDICT glosses 封网 as "seal off a network"; "change freeze" is no gloss of it
    assert _translations(pool, "When does the change freeze begin?")["change freeze"] == ["封网"]
    assert "封网" in _top(pool, kb, "When does the change freeze begin?", embedder)


def test_a_chinese_word_only_the_lexicon_knows_finds_the_english_note(
        pool: ConnectionPool, kb: str, embedder: Embedder) -> None:
    # 内网 is no CC-CEDICT headword (jieba alone cuts it into 内 / 网)
    assert _translations(pool, "公司内网加载不出来")["内网"] == ["intranet"]
    assert "intranet" in _top(pool, kb, "公司内网加载不出来", embedder)


def test_a_workplace_sense_is_translated_where_the_dictionary_has_too_many(
        pool: ConnectionPool, kb: str) -> None:
    # "release" glosses over a dozen headwords, so the dictionary alone drops it
    assert _translations(pool, "Which evening are releases shipped?")["releases"] == ["上线"]


def test_a_held_workplace_rendering_comes_before_the_dictionarys_other_senses(
        pool: ConnectionPool, kb: str) -> None:
    # CC-CEDICT's 上线 is "to go online"; the lexicon's is a release, which the notes hold
    assert _translations(pool, "新版本一般几点上线")["上线"][0] == "releases"


# --- the whole graph: refusal gate and sentence choice read the same translations ---------

CHANGE_RULES = """# 变更管理规定

## 封网
每年年中大促前十天开始封网，直到大促结束后第二天解除。
封网期间只允许紧急修复，须经技术总监审批。

## 发布窗口
常规发布安排在每周二、周四晚上八点以后。
"""

REMOTE_FAQ = """# Remote access FAQ

## The intranet does not load
Clear the browser cache, then sign in to the VPN portal again; the intranet needs the VPN.

## Guest network
Visitors use the guest network, whose password changes every Monday.
"""

LEAVE_RULES = """# 请假制度

## 年假
员工入职满一年后享有五天年假，需提前三个工作日申请。
"""

TRAVEL_NOTE = """# Travel notes

## Hotels
Book hotels through the travel portal; receipts go with the expense claim.
"""


@pytest.fixture
def agent(pool: ConnectionPool, embedder: Embedder, tmp_path: Path) -> Iterator[Agent]:
    files = {"change.md": CHANGE_RULES, "remote.md": REMOTE_FAQ, "leave.md": LEAVE_RULES,
             "travel.md": TRAVEL_NOTE}
    with files_agent(pool, embedder, tmp_path, "office", files) as a:
        yield a


def test_an_english_question_is_answered_from_the_chinese_rule_through_the_lexicon(
        agent: Agent) -> None:
    result = agent.ask(Question(text="When does the change freeze start?",
                                thread_id="lex:freeze", kb="office"))
    assert not result.refused, result.text
    assert "大促前十天" in result.text


def test_a_chinese_question_is_answered_from_the_english_faq_through_the_lexicon(
        agent: Agent) -> None:
    result = agent.ask(Question(text="内网打不开怎么办？", thread_id="lex:intranet",
                                kb="office"))
    assert not result.refused, result.text
    assert "browser cache" in result.text


def test_a_name_no_dictionary_lists_crosses_by_its_pinyin(
        pool: ConnectionPool, embedder: Any) -> None:
    with pool.connection() as conn:
        keyword_lines(conn, get_or_create_kb(conn, "names", embedder), "names", [
            "松涛书院每周六上午开放，讲座免费。",
            "梧桐路的新店下月开业。",
            "The Lanting office closes at six on Fridays.",
            "Visitors register at reception.",
        ], embedder, seed=7)
        kb_id = conn.execute("SELECT id FROM knowledge_bases WHERE name = 'names'").fetchone()
        assert kb_id is not None
        found = Translator().translations(conn, [kb_id[0]], "When is Songtao Academy open?",
                                          query_terms("When is Songtao Academy open?"))
        assert found["songtao"] == ["松涛"]
        back = Translator().translations(conn, [kb_id[0]], "澜庭办公室几点关门？",
                                         query_terms("澜庭办公室几点关门？"))
        assert back["澜庭"] == ["lanting"]
    hits = search(pool, "names", "When is Songtao Academy open?", embedder=embedder, k=2,
                  fusion="keyword", translator=Translator())
    assert hits
    assert "松涛" in hits[0].text
