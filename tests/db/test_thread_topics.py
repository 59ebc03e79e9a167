"""A thread that changes topic: the new question is searched as asked, a pronoun is resolved."""

from __future__ import annotations

import pytest

from agent.api import Question, build_agent
from store.types import SourceDocument

pytestmark = [pytest.mark.db, pytest.mark.model]

KB = "topics-test"
DOCS = [
    SourceDocument(doc_key="taxi", source="kb/taxi.md", title="Taxi receipts", fmt="markdown",
                   text=("# Taxi receipts\n\nSubmit taxi receipts within 45 days of the ride. "
                         "Late taxi receipts need your manager's written approval.\n")),
    SourceDocument(doc_key="release", source="kb/release.md", title="Releasing the billing "
                   "service", fmt="markdown",
                   text=("# Releasing the billing service\n\nRelease the billing service "
                         "from the release pipeline after the canary has run for 30 minutes. "
                         "A failed canary rolls the billing service back automatically.\n")),
]


@pytest.fixture
def kb_pool(pool, embedder):  # type: ignore[no-untyped-def]
    from store.ingest import ingest_documents

    ingest_documents(pool, KB, list(DOCS), embedder=embedder)
    return pool


def test_a_new_topic_is_searched_as_asked_and_a_pronoun_takes_the_thread_topic(
        kb_pool, embedder) -> None:  # type: ignore[no-untyped-def]
    agent = build_agent(kb_pool, embedder)
    try:
        thread = "slack:T:C:topics"
        first = agent.ask(Question(text="How long do I have to submit taxi receipts?",
                                   thread_id=thread, kb=KB))
        switch = agent.ask(Question(text="When is the billing service released to production?",
                                    thread_id=thread, kb=KB))
        follow = agent.ask(Question(text="Is it rolled back automatically?", thread_id=thread,
                                    kb=KB))
    finally:
        agent.close()
    assert [c.doc_id for c in first.citations][:1] == ["taxi"]
    # The question names its own topic: nothing of the taxi turn is added to it.
    assert switch.rewritten_query is None
    assert [c.doc_id for c in switch.citations][:1] == ["release"]
    # "it" is the billing service of the latest turn, in place of the pronoun.
    assert follow.rewritten_query is not None
    assert "billing" in follow.rewritten_query
    assert "taxi" not in follow.rewritten_query
    assert " it " not in f" {follow.rewritten_query} "
    assert [c.doc_id for c in follow.citations][:1] == ["release"]
