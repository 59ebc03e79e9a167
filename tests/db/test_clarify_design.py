"""When the bot asks back: a design set of questions written for this test (none from an
evaluation set), asked on the whole samples/kb through the real graph.

A question that names no topic of its own asks which document is meant; a short question
that names one ("VPN?") is searched; a follow-up in a thread with a topic is never asked
back."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from agent.api import Agent, Question
from store.tokenize import language_of
from tests.databases import samples_agent

pytestmark = [pytest.mark.db, pytest.mark.model]

KB = "samples"

# Only words that need something else to point at: bare actions, attributes, container
# nouns, pronouns and deictics with nothing before them, light verbs, question words.
NO_TOPIC = [
    "这个怎么弄？",
    "那个怎么办理",
    "How do I sign up?",
    "Who approves it?",
    "How long does it take?",
    "how does that work?",
    "What's the cap?",
    "Where's the form?",
    "费用标准是多少？",
    "申请表在哪里下载",
    "多久能批下来？",
    "What are the requirements?",
    "流程是什么",
    "截止日期是哪天？",
    "Can I cancel it?",
    "要找谁审批？",
    "What documents do I need to submit?",
    "怎么提交？",
    "Is there a template?",
    "规定是怎样的",
    "What's the procedure for that?",
    "上限多少",
    "需要哪些材料？",
    "where do I file it",
]

# Short, but each names what it is about.
SPECIFIC = [
    "VPN?",
    "年假几天",
    "Wi-Fi password?",
    "Redis maxmemory?",
    "k8s CrashLoopBackOff",
    "打印机怎么连",
    "病假要证明吗",
    "出差住宿标准",
    "laptop stolen",
    "MySQL慢查询",
    "deploy rollback?",
    "on-call pay?",
    "退货率多少",
    "Q3 revenue?",
    "调薪幅度",
    "封网时间",
    "哪天放假",
    "How do I reset my VPN password?",
    "备份保留多久",
    "What is the hotel cap in Shanghai?",
    "新员工工牌在哪领",
    "remote work days?",
    "supplier onboarding?",
    "怎么报销差旅费",
    "change freeze dates",
    "密码多久换一次",
    "expense deadline?",
    "年假怎么申请",
    "checkout incident cause?",
    "vendor renewal notice period?",
    "试用期多长？",
]


@pytest.fixture(scope="module")
def agent(pg_admin_url: str, _template: str, embedder) -> Iterator[Agent]:  # type: ignore[no-untyped-def]
    """The agent over all of samples/kb, one database for the module (embedding is slow)."""
    with samples_agent(pg_admin_url, _template, embedder, KB, prefix="c") as a:
        yield a


def _route(agent: Agent, text: str, thread: str) -> str:
    return agent.ask(Question(text=text, thread_id=thread, kb=KB)).route


@pytest.mark.parametrize("question", NO_TOPIC)
def test_a_question_that_names_no_topic_asks_back_with_options(agent: Agent,
                                                               question: str) -> None:
    result = agent.ask(Question(text=question, thread_id=f"vague:{question}", kb=KB))
    assert result.route == "clarify"
    assert result.clarification is not None
    assert result.clarification.question
    options = result.clarification.options
    assert len(options) >= 2
    # Titles or kinds of document, never the unclassified type; a Chinese asker reads the
    # kinds in Chinese.
    assert "document" not in options
    if language_of(question) == "zh":
        assert not {"faq", "policy", "runbook", "report"} & set(options)


@pytest.mark.parametrize("question", SPECIFIC)
def test_a_short_question_that_names_its_topic_is_searched(agent: Agent,
                                                            question: str) -> None:
    assert _route(agent, question, f"specific:{question}") != "clarify"


def test_a_follow_up_in_a_thread_with_a_topic_is_not_asked_back(agent: Agent) -> None:
    thread = "followup:vpn"
    assert _route(agent, "How do I set up the VPN client on a Mac?", thread) != "clarify"
    assert _route(agent, "Who approves it?", thread) != "clarify"
    assert _route(agent, "那个怎么办理", thread) != "clarify"


def test_a_deictic_first_question_whose_word_several_documents_hold_asks_which(
        agent: Agent) -> None:
    # "报销" alone would be searched; "那个报销" points at one reimbursement the thread has
    # not named, and more than one document speaks of reimbursement.
    result = agent.ask(Question(text="那个报销呢", thread_id="deictic", kb=KB))
    assert result.route == "clarify"
    assert result.clarification is not None
    assert len(result.clarification.options) >= 2
    assert _route(agent, "报销流程", "plain") != "clarify"
