"""The agent says when only documents the asker may not read could answer."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from agent.api import Agent, Question, build_agent
from store.types import SourceDocument

pytestmark = [pytest.mark.db, pytest.mark.model]

KB = "access-test"
READER = "user:U0HR"
DOCS = [
    SourceDocument(
        doc_key="salary", source="hr/salary.md", title="2027 salary adjustment",
        doc_type="policy", fmt="markdown", acl=(READER,), text=(
            "# 2027 salary adjustment\n\nThe 2027 salary adjustment budget is 6.5% of "
            "payroll, paid from April.\n")),
    SourceDocument(
        doc_key="vpn", source="it/vpn.md", title="VPN setup", doc_type="faq", fmt="markdown",
        text="# VPN setup\n\nThe VPN server address is vpn.lanting.example.\n"),
]


@pytest.fixture
def agent(pool, embedder) -> Iterator[Agent]:  # type: ignore[no-untyped-def]
    from store.ingest import ingest_documents

    report = ingest_documents(pool, KB, list(DOCS), embedder=embedder)
    assert report.failed == 0, report.errors
    a = build_agent(pool, embedder)
    yield a
    a.close()


def ask(agent: Agent, text: str, principals: tuple[str, ...],  # type: ignore[no-untyped-def]
        asker: tuple[str, ...] = ()):
    return agent.ask(Question(text=text, thread_id=f"t-{len(principals)}-{len(asker)}-"
                              f"{text[:8]}", kb=KB, principals=principals,
                              asker_principals=asker))


def test_a_refusal_is_marked_hidden_when_the_asker_could_read_the_answer_personally(
        agent: Agent) -> None:
    question = "What is the 2027 salary adjustment budget?"
    result = ask(agent, question, ("public",), asker=("public", READER))
    assert result.refused
    assert result.restricted_hidden  # the surface tells the asker alone
    assert "6.5" not in result.text
    assert result.citations == []
    plain = ask(agent, "Who won the 1998 chess olympiad in Elista?", ("public",),
                asker=("public", READER))
    assert result.text == plain.text  # the shared text is the plain refusal


def test_a_refusal_is_not_marked_hidden_for_an_asker_who_may_not_read_it(
        agent: Agent) -> None:
    question = "What is the 2027 salary adjustment budget?"
    for asker in ((), ("public", "user:U0OTHER")):
        result = ask(agent, question, ("public",), asker=asker)
        assert result.refused
        assert not result.restricted_hidden


def test_the_documents_reader_gets_the_answer(agent: Agent) -> None:
    result = ask(agent, "What is the 2027 salary adjustment budget?", ("public", READER))
    assert not result.refused
    assert not result.restricted_hidden
    assert "6.5" in result.text


def test_a_question_nothing_answers_is_not_blamed_on_access(agent: Agent) -> None:
    result = ask(agent, "Who won the 1998 chess olympiad in Elista?", ("public",))
    assert result.refused
    assert not result.restricted_hidden
