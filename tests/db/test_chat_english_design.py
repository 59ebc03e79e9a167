"""English questions typed in chat, asked on the whole samples/kb through the real graph:
written for this test (none from an evaluation set).

Chat English names its topic in few words among many that name nothing ("pls remind me",
"how far ahead", "r") or in short and irregular forms ("db" for database, "kept" for keep).
The refusal gate counts the share of the question's topic words the evidence holds; before,
those words counted as topic words no passage holds and the questions below were refused
although the Chinese policies answer them. Questions the KB does not answer, typed the same
way, are still refused."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from agent.api import Agent, Question
from tests.databases import samples_agent

pytestmark = [pytest.mark.db, pytest.mark.model]

KB = "samples"

# (question, the document that answers it). Which of its sentences is quoted is sentence
# choice's concern (the backup table's row is not always first).
ANSWERED = [
    ("pls remind me how far ahead annual leave has to be requested", "leave-policy.md"),
    ("how long r full db backups kept", "database-backup.md"),
]

NOT_IN_KB = [
    "wats the parking fee for my car at the office",
    "pls remind me when the christmas party is",
]


@pytest.fixture(scope="module")
def agent(pg_admin_url: str, _template: str, embedder) -> Iterator[Agent]:  # type: ignore[no-untyped-def]
    """The agent over all of samples/kb, one database for the module (embedding is slow)."""
    with samples_agent(pg_admin_url, _template, embedder, KB, prefix="c") as a:
        yield a


@pytest.mark.parametrize(("question", "document"), ANSWERED)
def test_a_chat_question_over_a_chinese_policy_is_answered(agent: Agent, question: str,
                                                           document: str) -> None:
    result = agent.ask(Question(text=question, thread_id=f"chat:{question}", kb=KB))
    assert not result.refused, result.text
    assert any(c.doc_id.endswith(document) for c in result.citations), result.text


@pytest.mark.parametrize("question", NOT_IN_KB)
def test_a_chat_question_the_kb_does_not_answer_is_still_refused(agent: Agent,
                                                                question: str) -> None:
    result = agent.ask(Question(text=question, thread_id=f"chat:{question}", kb=KB))
    assert result.refused, result.text
