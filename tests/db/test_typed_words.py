"""Words the asker types otherwise than the documents write them, through the real graph
(real Postgres, the packaged dictionary): a Chinese word typed with a wrong character of the
same sound (store/typed_words.py) and chat English (agent/wording.py). Examples written for this
test, none from an evaluation set."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from psycopg_pool import ConnectionPool

from agent.api import Agent, Question
from store.cedict import load_cedict
from store.embedder import Embedder
from store.tokenize import query_terms
from store.typed_words import corrections
from tests.databases import files_agent

pytestmark = pytest.mark.db

KB = "office"

CLAIMS = """# 费用报销规定

## 发票
发票抬头必须写公司全称；抬头写错的发票须联系开票方重开，不能手工涂改。

## 时限
报销须在费用发生后六十天内提交，逾期需部门负责人书面说明。

## 付款
财务审核通过后，款项于每周五打入工资卡。
"""

CANTEEN = """# 食堂须知

## 开放时间
食堂工作日十一点半开门，周末不开放。

## 停车
地下车库只对班车开放，员工车辆请停在园区东侧。
"""

POSTMORTEM = """# Postmortem: billing database failover

## What happened
On 3 Aug the primary billing database stopped answering and traffic moved to the replica.

## Why recovery was slow
The failover took twelve minutes, because the replica had to replay its backlog first.
"""

REMOTE = """# Remote work

## Who may work remotely
Staff who have completed probation may work remotely on up to two days a week.
"""


@pytest.fixture
def agent(pool: ConnectionPool, embedder: Embedder, tmp_path: Path) -> Iterator[Agent]:
    files = {"claims.md": CLAIMS, "canteen.md": CANTEEN, "postmortem.md": POSTMORTEM,
             "remote.md": REMOTE}
    with files_agent(pool, embedder, tmp_path, KB, files) as a:
        yield a


def _corrections(pool: ConnectionPool, query: str) -> dict[str, list[str]]:
    with pool.connection() as conn:
        row = conn.execute("SELECT id FROM knowledge_bases WHERE name = %s", [KB]).fetchone()
        assert row is not None
        return corrections(conn, [row[0]], query_terms(query), load_cedict())


def test_a_mistyped_word_is_read_as_the_word_of_the_same_sound_the_kb_holds(
        pool: ConnectionPool, agent: Agent) -> None:
    assert _corrections(pool, "报消最晚多少天内要交") == {"报消": ["报销"]}


def test_a_verb_with_another_complement_of_arriving_is_read_as_the_kbs_form(
        pool: ConnectionPool, agent: Agent) -> None:
    assert _corrections(pool, "报销款哪天打到卡里") == {"打到": ["打入"]}


def test_a_real_word_or_a_sound_alike_the_kb_lacks_is_left_as_typed(
        pool: ConnectionPool, agent: Agent) -> None:
    # 发飘 is a word of its own; 年价's sound-alike 年假 is in no document here
    assert _corrections(pool, "发飘是怎么回事") == {}
    assert _corrections(pool, "年价有几天") == {}


def test_a_piece_of_a_longer_word_the_asker_typed_is_no_typo(
        pool: ConnectionPool, agent: Agent) -> None:
    # the search cut of 数据库 holds 据库, a sound-alike of the KB's 车库; 数据库 is a word
    assert _corrections(pool, "数据库多久备份一次") == {}


def test_a_question_on_a_word_whose_piece_sounds_like_a_kb_word_is_refused(
        agent: Agent) -> None:
    result = agent.ask(Question(text="数据库多久备份一次", thread_id="typo:backup", kb=KB))
    assert result.refused, result.text


def test_a_chinese_question_with_a_sound_alike_typo_is_answered(agent: Agent) -> None:
    result = agent.ask(Question(text="报消最晚多少天内要交", thread_id="typo:claim", kb=KB))
    assert not result.refused, result.text
    assert "六十天" in result.text


def test_a_chinese_question_with_another_complement_is_answered(agent: Agent) -> None:
    result = agent.ask(Question(text="报销款哪天打到卡里", thread_id="typo:paid", kb=KB))
    assert not result.refused, result.text
    assert "每周五" in result.text


def test_a_chinese_question_on_what_no_document_says_is_still_refused(agent: Agent) -> None:
    result = agent.ask(Question(text="年价有几天", thread_id="typo:leave", kb=KB))
    assert result.refused, result.text


def test_chat_english_whose_words_a_report_writes_otherwise_is_answered(
        agent: Agent) -> None:
    result = agent.ask(Question(text="why did the failover in aug take so long",
                                thread_id="typo:failover", kb=KB))
    assert not result.refused, result.text
    assert "twelve minutes" in result.text


def test_wfh_is_answered_from_a_policy_on_working_remotely(agent: Agent) -> None:
    result = agent.ask(Question(text="once i pass probation how often can i wfh",
                                thread_id="typo:wfh", kb=KB))
    assert not result.refused, result.text
    assert "two days a week" in result.text
