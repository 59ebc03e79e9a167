"""English questions over Chinese documents: a design set written for this test (none from
an evaluation set), asked on the whole samples/kb through the real graph.

Each question's words are English; the policy answering it is Chinese. The refusal gate
must see the policy's words as the question's (translated through the dictionary, a word
of many senses read in the senses it is first of), and questions the KB does not answer
are still refused."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from agent.api import Agent, Question
from tests.databases import samples_agent

pytestmark = [pytest.mark.db, pytest.mark.model]

KB = "samples"

# (question, a value the Chinese answer holds)
ANSWERED = [
    # "apply" glosses 22 headwords; "apply for" is 申请
    ("How far ahead must I apply for annual leave?", "提前 3 个工作日"),
    # "length" glosses 8 headwords; 长度 is one it is the first sense of
    ("What is the minimum password length?", "12 位"),
    # inflected words of many senses: "handles" (处理), "involving" (涉及)
    ("Who handles a complaint involving more than 5000 yuan?", "客户运营部负责人"),
    ("How many days of marriage leave are there?", "13 天"),
    ("How long is the warranty on the air purifier motor?", "保修 3 年"),
    # "in advance" is one gloss of 提前; "advance" alone is a dozen headwords
    ("How many days in advance is annual leave requested?", "提前 3 个工作日"),
    # "reimbursement" glosses nothing; 报销 is "to apply for reimbursement"
    ("Who approves a reimbursement above 20000 yuan?", "财务总监"),
]

NOT_IN_KB = [
    "How many parking spaces does the company have?",
    "What is the bonus for referring a new hire?",
]


@pytest.fixture(scope="module")
def agent(pg_admin_url: str, _template: str, embedder) -> Iterator[Agent]:  # type: ignore[no-untyped-def]
    """The agent over all of samples/kb, one database for the module (embedding is slow)."""
    with samples_agent(pg_admin_url, _template, embedder, KB, prefix="x") as a:
        yield a


@pytest.mark.parametrize(("question", "value"), ANSWERED)
def test_an_english_question_over_a_chinese_policy_is_answered(agent: Agent, question: str,
                                                                value: str) -> None:
    result = agent.ask(Question(text=question, thread_id=f"xl:{question}", kb=KB))
    assert not result.refused, result.text
    assert value in result.text


@pytest.mark.parametrize("question", NOT_IN_KB)
def test_an_english_question_the_kb_does_not_answer_is_still_refused(agent: Agent,
                                                                     question: str) -> None:
    result = agent.ask(Question(text=question, thread_id=f"xl:{question}", kb=KB))
    assert result.refused, result.text
