"""The answer cache: repeated standalone questions are answered from Postgres, and any
change to the KB or to who asks makes the agent answer afresh."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.api import Agent, AgentConfig, AnswerResult, Question, build_agent
from store.types import SourceDocument

pytestmark = [pytest.mark.db, pytest.mark.model]

KB = "cache-test"
READER = "user:U0FIN"
PARKING = SourceDocument(
    doc_key="parking", source="facilities/parking.md", title="Parking permits",
    doc_type="faq", fmt="markdown",
    text="# Parking permits\n\nParking permits for the Birchwood garage are issued by the "
         "front desk on level 2 and cost 40 euros a month.\n")
BONUS = SourceDocument(
    doc_key="bonus", source="finance/bonus.md", title="2028 bonus pool", doc_type="policy",
    fmt="markdown", acl=(READER,),
    text="# 2028 bonus pool\n\nThe 2028 bonus pool is 4.2% of base salary, paid in March.\n")
PARKING_Q = "Who issues parking permits for the Birchwood garage?"
BONUS_Q = "How large is the 2028 bonus pool?"


def _ingest(pool, embedder, *docs: SourceDocument) -> None:  # type: ignore[no-untyped-def]
    from store.ingest import ingest_documents

    report = ingest_documents(pool, KB, list(docs), embedder=embedder)
    assert report.failed == 0, report.errors


@pytest.fixture
def agent(pool, embedder) -> Iterator[Agent]:  # type: ignore[no-untyped-def]
    _ingest(pool, embedder, PARKING, BONUS)
    a = build_agent(pool, embedder)
    yield a
    a.close()


def ask(agent: Agent, text: str, principals: tuple[str, ...] = ("public",),
        thread: str | None = None, asker: tuple[str, ...] = ()) -> AnswerResult:
    return agent.ask(Question(text=text, thread_id=thread or f"t-{uuid.uuid4().hex}", kb=KB,
                              principals=principals, asker_principals=asker))


def test_a_repeated_question_is_answered_from_the_cache_with_its_citations(agent, pool) -> None:  # type: ignore[no-untyped-def]
    from store.traces import get_trace

    first = ask(agent, PARKING_Q)
    assert not first.cached
    assert "front desk" in first.text
    again = ask(agent, "  who issues PARKING permits for the Birchwood garage ")
    assert again.cached
    assert again.text == first.text
    assert again.citations == first.citations
    assert again.trace_id != first.trace_id
    with pool.connection() as conn:
        trace = get_trace(conn, again.trace_id)
    assert trace is not None
    assert trace["cached"] is True
    assert trace["cached_from"] == first.trace_id
    assert trace["citations"][0]["doc_id"] == "parking"


def test_a_cached_first_turn_is_remembered_for_follow_ups(agent: Agent) -> None:
    ask(agent, PARKING_Q)
    thread = f"t-{uuid.uuid4().hex}"
    assert ask(agent, PARKING_Q, thread=thread).cached
    follow = ask(agent, "How much does it cost?", thread=thread)
    assert not follow.cached
    assert follow.rewritten_query is not None
    assert "40 euros" in follow.text


def test_follow_ups_are_never_cached(agent: Agent, pool) -> None:  # type: ignore[no-untyped-def]
    thread = f"t-{uuid.uuid4().hex}"
    ask(agent, PARKING_Q, thread=thread)
    ask(agent, "How much does it cost?", thread=thread)
    with pool.connection() as conn:
        keys = [r[0] for r in conn.execute("SELECT question_key FROM answer_cache")]
    assert keys == ["who issues parking permits for the birchwood garage"]
    assert not ask(agent, "How much does it cost?").cached


def test_ingest_invalidates(agent: Agent, pool, embedder) -> None:  # type: ignore[no-untyped-def]
    ask(agent, PARKING_Q)
    assert ask(agent, PARKING_Q).cached
    _ingest(pool, embedder, SourceDocument(
        doc_key="canteen", source="facilities/canteen.md", title="Canteen", fmt="markdown",
        text="# Canteen\n\nThe canteen opens at 11:30.\n"))
    assert not ask(agent, PARKING_Q).cached
    assert ask(agent, PARKING_Q).cached


def test_an_access_list_change_invalidates(agent: Agent, pool, embedder) -> None:  # type: ignore[no-untyped-def]
    principals = ("public", READER)
    assert "4.2%" in ask(agent, BONUS_Q, principals).text
    assert ask(agent, BONUS_Q, principals).cached
    _ingest(pool, embedder, SourceDocument(
        doc_key=BONUS.doc_key, source=BONUS.source, title=BONUS.title, doc_type="policy",
        fmt="markdown", acl=("user:U0CFO",), text=BONUS.text))
    after = ask(agent, BONUS_Q, principals)
    assert not after.cached
    assert "4.2%" not in after.text


def test_reindex_invalidates(pool, embedder, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from store.ingest import ingest_paths
    from store.reindex import reindex

    (tmp_path / "parking.md").write_text(PARKING.text, encoding="utf-8")
    ingest_paths(pool, KB, [tmp_path], embedder=embedder)
    agent = build_agent(pool, embedder)
    try:
        ask(agent, PARKING_Q)
        assert ask(agent, PARKING_Q).cached
        reindex(pool, KB, embedder=embedder)
        assert not ask(agent, PARKING_Q).cached
    finally:
        agent.close()


def test_a_cached_answer_never_crosses_access_principals(agent: Agent) -> None:
    reader = ask(agent, BONUS_Q, ("public", READER))
    assert "4.2%" in reader.text
    outsider = ask(agent, BONUS_Q, ("public",))
    assert not outsider.cached
    assert "4.2%" not in outsider.text
    # the same principals in another order are the same asker
    assert ask(agent, BONUS_Q, (READER, "public", READER)).cached


def test_restricted_refusals_are_not_cached(agent: Agent) -> None:
    # asked in a public place by someone who could read the answer elsewhere
    plain = ask(agent, BONUS_Q, ("public",))
    assert not plain.restricted_hidden
    hidden = ask(agent, BONUS_Q, ("public",), asker=("public", READER))
    assert not hidden.cached  # the plain refusal is not served to an asker who may read more
    assert hidden.restricted_hidden
    again = ask(agent, BONUS_Q, ("public",), asker=("public", READER))
    assert again.restricted_hidden
    assert not again.cached


def test_a_thumbs_down_evicts_the_cached_answer(agent: Agent, pool) -> None:  # type: ignore[no-untyped-def]
    from store.feedback import DOWN, record_vote
    from store.traces import get_trace

    ask(agent, PARKING_Q)
    cached = ask(agent, PARKING_Q)
    assert cached.cached
    with pool.connection() as conn:
        record_vote(conn, channel="C1", message_ts="1.0", user="U1", vote=DOWN,
                    trace_id=cached.trace_id, trace=get_trace(conn, cached.trace_id))
    assert not ask(agent, PARKING_Q).cached


def test_hit_rate_is_in_kb_status(agent: Agent, pool) -> None:  # type: ignore[no-untyped-def]
    from store.kb import kb_status

    ask(agent, PARKING_Q)
    ask(agent, PARKING_Q)
    ask(agent, PARKING_Q)
    with pool.connection() as conn:
        stats = kb_status(conn, KB)["answer_cache"]
    assert stats == {"lookups": 3, "hits": 2, "entries": 1, "hit_rate": 0.667}


def test_the_cache_can_be_turned_off(pool, embedder) -> None:  # type: ignore[no-untyped-def]
    from bot.settings import Settings

    _ingest(pool, embedder, PARKING)
    settings = Settings(_env_file=None, answer_cache="off")  # type: ignore[call-arg]
    assert settings.answer_cache is False
    agent = build_agent(pool, embedder, config=AgentConfig(answer_cache=settings.answer_cache))
    try:
        ask(agent, PARKING_Q)
        assert not ask(agent, PARKING_Q).cached
    finally:
        agent.close()
