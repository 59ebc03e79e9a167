"""The full-mode eval step: clarifications replayed as a thread, cited passages, principals."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from agent.api import Agent, build_agent
from bot.evaluation.agent_step import agent_step
from bot.evaluation.dataset import Question
from store.types import SourceDocument

pytestmark = [pytest.mark.db, pytest.mark.model]

KB = "eval-step"

DOCS = [
    SourceDocument(
        doc_key="bikes", source="kb/bikes.md", title="Bike shed rules", doc_type="policy",
        fmt="markdown", text=(
            "# Bike shed rules\n\nThe bike shed behind building C opens at 6:30. "
            "Electric bikes charge only at the red sockets.\n")),
    SourceDocument(
        doc_key="lockers", source="kb/lockers.md", title="Locker rental", doc_type="policy",
        fmt="markdown", text=(
            "# Locker rental\n\nA locker in the basement costs four euros a month. "
            "Keys are handed out by the facilities desk.\n")),
    SourceDocument(
        doc_key="board", source="kb/board.md", title="Board minutes", doc_type="minutes",
        fmt="markdown", acl=["group:board"], text=(
            "# Board minutes\n\nThe board approved the new locker prices for the basement "
            "in March.\n")),
]


@pytest.fixture
def agent(pool, embedder) -> Iterator[Agent]:  # type: ignore[no-untyped-def]
    from store.ingest import ingest_documents

    report = ingest_documents(pool, KB, list(DOCS), embedder=embedder)
    assert report.failed == 0, report.errors
    a = build_agent(pool, embedder)
    yield a
    a.close()


def test_an_expected_clarification_stays_pending_and_the_next_turn_answers_it(
        agent: Agent) -> None:
    step = agent_step(agent, KB, run_id="r1")
    vague = Question(id="q1", question="the policy?", thread="t", turn=1, answerable=False,
                     extra={"expect": "clarify"})
    reply = Question(id="q2", question="Bike shed rules", thread="t", turn=2)
    first = step(vague)
    assert first.route == "clarify"
    assert agent.pending_clarification("eval:r1:t") is not None
    second = step(reply)
    assert second.route != "clarify"
    assert agent.pending_clarification("eval:r1:t") is None
    assert "bikes" in second.cited_doc_ids


def test_cited_passages_carry_the_text_of_the_cited_chunks(agent: Agent) -> None:
    question = Question(id="q", question="What does a locker in the basement cost?")
    out = agent_step(agent, KB)(question)
    assert "lockers" in out.cited_doc_ids
    assert out.cited_passages
    assert any("four euros" in p["text"] for p in out.cited_passages
               if p["doc_id"] == "lockers")


def test_the_step_asks_as_the_given_principals(agent: Agent) -> None:
    question = Question(id="q", question="When did the board approve the locker prices?")
    public = agent_step(agent, KB)(question)
    board = agent_step(agent, KB, principals=("public", "group:board"))(question)
    assert "board" not in public.retrieved_doc_ids
    assert "board" in board.retrieved_doc_ids
