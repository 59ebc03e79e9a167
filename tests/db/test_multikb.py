"""Several knowledge bases behind one conversation, against the real database and embedder:
the router picks where to look, follow-ups stay, a topic change moves, a KB the asker cannot
read contributes nothing, and one KB's reindex does not disturb another's searches."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from psycopg_pool import ConnectionPool

from agent.api import Agent, Question, build_agent
from store.kb_profile import profiles, set_description
from store.multi_search import search_kbs
from store.reindex import reindex
from store.traces import get_trace
from tests.db.test_reindex import SlowEmbedder
from tests.multikb_corpus import ingest_kbs

pytestmark = [pytest.mark.db, pytest.mark.model]

THREE = "hr+it+eng"


@pytest.fixture
def kbs_pool(pool: ConnectionPool, embedder: Any, tmp_path: Path) -> ConnectionPool:
    ingest_kbs(pool, embedder, tmp_path / "docs", ("hr", "it", "eng", "finance"))
    return pool


@pytest.fixture
def agent(kbs_pool: ConnectionPool, embedder: Any) -> Any:
    a = build_agent(kbs_pool, embedder)
    yield a
    a.close()


def _ask(agent: Agent, text: str, thread: str, kbs: str = THREE,
         principals: tuple[str, ...] = ("public",)) -> tuple[Any, dict[str, Any]]:
    result = agent.ask(Question(text=text, thread_id=thread, kb=kbs, principals=principals))
    with agent.deps.pool.connection() as conn:
        trace = get_trace(conn, result.trace_id)
    assert trace is not None
    return result, trace


def test_a_question_is_answered_from_the_kb_that_holds_it_among_three(agent: Agent) -> None:
    result, trace = _ask(agent, "How many weeks of paid parental leave do new parents get?",
                         "t-hr")
    assert trace["kbs_searched"] == ["hr"]
    assert trace["kb_shares"]["hr"] > 0.6
    assert "20 weeks" in result.text
    assert [(c.title, c.kb) for c in result.citations][:1] == [("Parental Leave Policy", "hr")]
    assert result.kbs == ["hr"]
    assert result.to_json()["citations"][0]["kb"] == "hr"


def test_a_follow_up_stays_in_its_kb(agent: Agent) -> None:
    first, trace = _ask(agent, "My VPN tunnel drops every few minutes, what should I do?",
                        "t-follow")
    assert trace["kbs_searched"] == ["it"]
    assert "TCP" in first.text
    second, trace = _ask(agent, "What if that does not help?", "t-follow")
    assert trace["kbs_searched"] == ["it"]
    assert trace["kb_reason"].startswith("follow-up")
    assert {c.kb for c in second.citations} <= {"it"}


def test_a_topic_change_in_a_thread_moves_to_the_other_kb(agent: Agent) -> None:
    _, trace = _ask(agent, "My VPN tunnel drops every few minutes, what should I do?",
                    "t-move")
    assert trace["kbs_searched"] == ["it"]
    moved, trace = _ask(agent, "And how many weeks of parental leave do new parents get?",
                        "t-move")
    assert trace["kbs_searched"] == ["hr"]
    # "And" joins it to the thread, but it names its own topic: routed as a new question,
    # nothing of the VPN turn carried (a follow-up naming another KB moves too: "topic
    # changed", tests/db/test_thread_kb_routing.py).
    assert not trace["kb_reason"].startswith("follow-up")
    assert moved.rewritten_query is None
    assert moved.retrieved_doc_ids[0].endswith("parental-leave.md")
    assert all(c.kb == "hr" for c in moved.citations)


def test_a_kb_the_asker_cannot_read_contributes_nothing(agent: Agent) -> None:
    question = "How long does the hardware budget freeze last for laptop purchases?"
    public, trace = _ask(agent, question, "t-public", kbs="hr+it+finance")
    assert trace["kb_shares"]["finance"] == 0  # its words are in documents the asker cannot read
    assert all(c.kb != "finance" for c in public.citations)
    assert "audit closes" not in public.text
    cfo, trace = _ask(agent, question, "t-cfo", kbs="hr+it+finance",
                      principals=("public", "user:U0CFO"))
    assert trace["kbs_searched"] == ["finance"]
    assert "audit closes" in cfo.text


def test_one_kb_reindexing_while_another_is_searched(kbs_pool: ConnectionPool,
                                                     embedder: Any, agent: Agent) -> None:
    started, release = threading.Event(), threading.Event()
    errors: list[BaseException] = []

    def rebuild() -> None:
        try:
            reindex(kbs_pool, "hr", embedder=SlowEmbedder(embedder, started, release))
        except BaseException as exc:
            errors.append(exc)

    thread = threading.Thread(target=rebuild)
    thread.start()
    try:
        assert started.wait(30)
        # hr is being rebuilt: its old generation still answers, it answers beside it
        hits = search_kbs(kbs_pool, ["hr", "it"], "parental leave weeks VPN tunnel TCP",
                          embedder=embedder, k=10)
        assert {h.kb for h in hits} == {"hr", "it"}
        during, trace = _ask(agent, "My VPN tunnel drops every few minutes, what should I do?",
                             "t-during", kbs="hr+it")
        assert trace["kbs_searched"] == ["it"]
        assert "TCP" in during.text
    finally:
        release.set()
        thread.join()
    assert errors == []
    after, _ = _ask(agent, "How many weeks of paid parental leave do new parents get?",
                    "t-after", kbs="hr+it")
    assert "20 weeks" in after.text


def test_descriptions_and_derived_summaries(kbs_pool: ConnectionPool) -> None:
    with kbs_pool.connection() as conn:
        about = profiles(conn)
        # derived at ingest from public titles and distinctive terms; never restricted ones
        assert "Parental Leave Policy" in about["hr"].summary
        assert "tunnelblick" in about["it"].summary
        assert about["finance"].summary == ""
        set_description(conn, "eng", "Engineering: releases, hotfixes and deploys")
        assert profiles(conn, ["eng"])["eng"].text == "Engineering: releases, hotfixes and deploys"
        with pytest.raises(ValueError, match="keep it under 500"):
            set_description(conn, "eng", "x" * 501)


def test_the_llm_route_reply_names_the_kbs_and_unknown_names_are_ignored(
        kbs_pool: ConnectionPool, embedder: Any, fake_openai: Any) -> None:
    import json

    from agent import llm_prompts as prompts
    from tests.db.test_llm_engine import llm_agent
    from tests.fakes.openai_server import Reply

    named: list[list[str]] = [["it"], ["payroll"]]
    seen: list[dict[str, Any]] = []

    def model(body: dict[str, Any]) -> Any:
        system = body["messages"][0]["content"]
        payload = json.loads(body["messages"][1]["content"])
        if system == prompts.UNDERSTAND:
            return {"query": payload["question"], "is_followup": False,
                    "entities": ["parental", "leave"]}
        if system == prompts.ROUTE:
            seen.append(payload)
            return {"route": "single_retrieval", "reason": "policy question",
                    "knowledge_bases": named.pop(0)}
        return Reply.error(400, "not scripted")

    fake_openai.respond_with(model)
    agent = llm_agent(kbs_pool, embedder, fake_openai)
    # one KB stands out: the rule routes, the model is not asked
    _, trace = _ask(agent, "How many weeks of paid parental leave do new parents get?", "t-0")
    assert trace["kbs_searched"] == ["hr"]
    assert seen == []
    question = "Which snacks are served at the summer party on the rooftop?"
    _, trace = _ask(agent, question, "t-llm-1")  # no KB holds these words: the model picks
    assert [kb["name"] for kb in seen[0]["knowledge_bases"]] == ["hr", "it", "eng"]
    assert all(kb["share"] < 0.6 for kb in seen[0]["knowledge_bases"])
    assert trace["kbs_searched"] == ["it"]
    assert trace["kb_reason"] == "named by the route model"
    _, trace = _ask(agent, question, "t-llm-2")  # a KB the conversation does not have
    assert trace["kbs_searched"] == ["hr", "it", "eng"]
    agent.close()


def test_a_vague_question_over_several_kbs_offers_the_kbs_and_searches_the_chosen_one(
        agent: Agent) -> None:
    asked = Question(text="What's the limit?", thread_id="t-vague", kb=THREE)
    result = agent.ask(asked)
    assert result.clarification is not None
    options = result.clarification.options
    by_kb = {o.split(":")[0]: o for o in options}
    assert sorted(by_kb) == ["eng", "hr", "it"]
    assert "Parental Leave Policy" in by_kb["hr"]  # the KB's summary names its documents
    chosen = agent.resume(asked, by_kb["it"])
    with agent.deps.pool.connection() as conn:
        trace = get_trace(conn, chosen.trace_id)
    assert trace is not None
    assert trace["kbs_searched"] == ["it"]
    assert trace["kb_reason"] == "the asker chose this knowledge base"
