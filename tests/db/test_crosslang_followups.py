"""English follow-ups in threads answered from a Chinese document of samples/kb, through the
real graph: threads written for this test (none from an evaluation set). The words the
rewrite carries in from the thread are the earlier English question's; the Chinese policy
the thread was answered from holds them in its own words, so they do not make a follow-up
the document answers look unanswerable, and they never stand in for the follow-up's own."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.api import Agent, AnswerResult, Question
from tests.databases import samples_agent

pytestmark = [pytest.mark.db, pytest.mark.model]

KB = "samples"


@pytest.fixture(scope="module")
def agent(pg_admin_url: str, _template: str, embedder) -> Iterator[Agent]:  # type: ignore[no-untyped-def]
    """The agent over all of samples/kb, one database for the module (embedding is slow)."""
    with samples_agent(pg_admin_url, _template, embedder, KB, prefix="x") as a:
        yield a


def _thread(agent: Agent, name: str, questions: list[str]) -> list[AnswerResult]:
    return [agent.ask(Question(text=q, thread_id=f"crosslang:{name}", kb=KB)) for q in questions]


def _cited(answer: AnswerResult) -> str:
    return Path(answer.citations[0].doc_id).stem if answer.citations else ""


def test_a_pronoun_follow_up_is_answered_from_the_chinese_policy_the_thread_cited(
        agent: Agent) -> None:
    first, second, third = _thread(agent, "sick", [
        "Is sick leave paid?", "Do I need a hospital certificate for it?",
        "Can I apply for it after I come back?"])
    assert _cited(first) == "leave-policy"
    assert _cited(second) == "leave-policy"
    # "sick leave" and "hospital certificate" are carried in; 病假 / 医院证明 hold them.
    assert not third.refused
    assert _cited(third) == "leave-policy"
    assert "病假" in third.text


def test_follow_ups_the_chinese_policy_does_not_answer_stay_refused(agent: Agent) -> None:
    answers = _thread(agent, "approvals", [
        "What is the deadline to submit a reimbursement?", "What happens after 180 days?",
        "Who approves it above 20000 yuan?", "Does it apply to contractors too?"])
    assert "20000" in answers[2].text
    # The reimbursement rules never name contractors: the carried words do not make up
    # for the one the asker typed.
    assert answers[3].refused
    annual = _thread(agent, "annual", ["How many days of marriage leave are there?",
                                       "Is it paid out in cash when I resign?"])
    assert _cited(annual[0]) == "leave-policy"
    assert annual[1].refused
