"""Questions the documents do not answer, though a passage shares most of their words: a
design set written for this test (none from an evaluation set), asked on the whole
samples/kb through the real graph.

The travel policy's table names tiers 1 and 2 and a few Chinese cities; the remote-work
policy names a home-office allowance; the reimbursement process lists what may be claimed;
the MySQL runbook names SQL fingerprints without saying how many are kept. A question
fixing another place, another tier or another kind of allowance or claim, or counting what
the documents never count, is about something the documents never mention, and is refused
naming it; the same questions about what the documents do hold are answered."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from agent.api import Agent, Question
from tests.databases import samples_agent

pytestmark = [pytest.mark.db, pytest.mark.model]

KB = "samples"

# (question, the word the refusal names, or None for a plain refusal)
NOT_IN_KB = [
    ("What is the hotel limit in Singapore?", "Singapore"),
    ("Who approves first class flights to Tokyo?", "Tokyo"),
    ("What is the meal limit for Tier 3 cities?", "Tier 3"),
    # "course" is held translated (课程 in the Chinese handbook); "language" nowhere.
    ("Is there a language course allowance?", "language"),
    ("Is there a childcare allowance?", None),
    # A count asked of a thing the runbook names but never counts.
    ("慢查询平台最多能保存多少条 SQL 指纹？", "指纹的数量"),
]

# (question, a value the answer holds)
ANSWERED = [
    ("What is the hotel limit in Shanghai?", "CNY 800"),
    ("What is the hotel limit in Tier 2 cities?", "CNY 550"),
    ("What is the meal allowance per day in Tier 1 cities?", "CNY 200"),
    ("How much is the home office allowance?", "CNY 1,500"),
    ("Which Wi-Fi network do visitors use in the Hangzhou office?", "Lanting-Guest"),
    ("Who approves business class flights?", "VP approval"),
    # The same generic words (报销, 多少个, 几天, 什么时候发) about what the documents
    # hold; in the last, a later word (一般) is held only by other passages.
    ("培训费可以报销吗？", "培训申请"),
    ("Redis 单个集合最多能放多少个元素？", "5000"),
    ("婚假有几天？", "13 天"),
    ("工资一般什么时候发？", "10 日"),
]


@pytest.fixture(scope="module")
def agent(pg_admin_url: str, _template: str, embedder) -> Iterator[Agent]:  # type: ignore[no-untyped-def]
    """The agent over all of samples/kb, one database for the module (embedding is slow)."""
    with samples_agent(pg_admin_url, _template, embedder, KB, prefix="r") as a:
        yield a


@pytest.mark.parametrize(("question", "missing"), NOT_IN_KB)
def test_a_question_about_what_the_documents_never_mention_is_refused(
        agent: Agent, question: str, missing: str | None) -> None:
    result = agent.ask(Question(text=question, thread_id=f"rf:{question}", kb=KB))
    assert result.refused, result.text
    if missing is not None:
        assert f'"{missing}"' in result.text or f"“{missing}”" in result.text


@pytest.mark.parametrize(("question", "value"), ANSWERED)
def test_the_same_question_about_what_the_documents_hold_is_answered(
        agent: Agent, question: str, value: str) -> None:
    result = agent.ask(Question(text=question, thread_id=f"rf:{question}", kb=KB))
    assert not result.refused, result.text
    assert value in result.text
