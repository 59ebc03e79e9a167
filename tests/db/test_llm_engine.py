"""A whole turn through the agent with the LLM engine against the fake OpenAI server.

Real Postgres, the real embedder, the sample documents of the two-hop scenario, the real
graph; only the model is a local OpenAI-compatible server answering each step's prompt.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from langchain_openai import ChatOpenAI
from psycopg_pool import ConnectionPool
from pydantic import SecretStr
from structlog.testing import capture_logs

from agent import llm_prompts as prompts
from agent.api import Agent, AnswerResult, Question, build_agent
from agent.engine import OfflineEngine
from agent.llm import LLMEngine
from store.ingest import ingest_paths
from tests.fakes.openai_server import FakeOpenAI, Reply, ScriptItem

pytestmark = [pytest.mark.db, pytest.mark.model]

KB_DIR = Path(__file__).resolve().parents[2] / "samples" / "kb"
DOCS = ["alert-storm-runbook.md", "change-management-policy.md", "redis-memory-runbook.md",
        "k8s-pod-crashloop-runbook.md", "supplier-onboarding-notes.md"]
TWO_HOP = "服务器频繁告警时该参考哪个应急预案？预案里的回滚操作是否需要二次审批？"
RUNBOOK, POLICY = "服务器频繁告警应急预案", "变更管理制度"


@pytest.fixture
def kb_pool(pool: ConnectionPool, embedder: Any) -> ConnectionPool:
    ingest_paths(pool, "samples", [KB_DIR / d for d in DOCS], embedder=embedder)
    return pool


def _numbers(body: dict[str, Any]) -> dict[str, int]:
    """Title -> passage number in the step's input."""
    payload = json.loads(body["messages"][1]["content"])
    return {p["title"]: p["n"] for p in reversed(payload.get("passages", []))}


def _understand(body: dict[str, Any]) -> ScriptItem:
    question = json.loads(body["messages"][1]["content"])["question"]
    return {"query": question, "is_followup": False, "entities": ["服务器", "告警", "回滚"]}


def _evaluate(body: dict[str, Any]) -> ScriptItem:
    found = _numbers(body)
    if RUNBOOK in found and POLICY in found:
        return {"sufficient": True, "reason": "both documents present"}
    return {"sufficient": False, "missing": [POLICY],
            "next_queries": ["变更管理制度 回滚 二次审批"]}


def _generate(body: dict[str, Any]) -> ScriptItem:
    found = _numbers(body)
    if RUNBOOK not in found or POLICY not in found:
        return {"refused": True, "sentences": []}
    return {"refused": False, "sentences": [
        {"text": "服务器频繁告警时应参考《服务器频繁告警应急预案》。",
         "cites": [found[RUNBOOK]]},
        {"text": "回滚需要二次审批：值班负责人审批后，还须变更委员会成员或技术总监二次审批。",
         "cites": [found[POLICY]]}]}


STEPS: dict[str, Callable[[dict[str, Any]], ScriptItem]] = {
    prompts.UNDERSTAND: _understand,
    prompts.ROUTE: lambda _: {"route": "multi_retrieval", "reason": "a chain of two questions"},
    prompts.PLAN: lambda _: {"sub_questions": [
        {"id": "q1", "query": "服务器频繁告警 应急预案"},
        {"id": "q2", "query": "预案里的回滚操作是否需要二次审批", "depends_on": ["q1"]}]},
    prompts.BRIDGE: lambda _: {"query": "变更管理制度 回滚 二次审批", "bridge_entity": POLICY},
    prompts.EVALUATE: _evaluate,
    prompts.EVALUATE_STRICT: _evaluate,
    prompts.GENERATE: _generate,
    prompts.VERIFY: lambda _: {"supported": True, "reason": "each sentence is in its passage"},
}


def scripted_model(body: dict[str, Any]) -> ScriptItem:
    """A model that follows each step's prompt for the two-hop scenario."""
    step = STEPS.get(body["messages"][0]["content"])
    return step(body) if step else Reply.error(400, "unexpected prompt")


def llm_agent(pool: ConnectionPool, embedder: Any, fake: FakeOpenAI) -> Agent:
    chat = ChatOpenAI(base_url=fake.base_url, model="fake-model", api_key=SecretStr("k"),
                      timeout=5, max_retries=0)
    return build_agent(pool, embedder, engine=LLMEngine(chat, fallback=OfflineEngine()))


def titles(result: AnswerResult) -> set[str]:
    return {c.title for c in result.citations}


def test_two_hop_question_answered_by_the_llm_engine_cites_runbook_and_policy(
        kb_pool: ConnectionPool, embedder: Any, fake_openai: FakeOpenAI) -> None:
    fake_openai.respond_with(scripted_model)
    with capture_logs() as logs:
        result = llm_agent(kb_pool, embedder, fake_openai).ask(
            Question(text=TWO_HOP, thread_id="t-llm-1", kb="samples"))
    assert result.refused is False
    assert "二次审批" in result.text
    assert titles(result) == {RUNBOOK, POLICY}
    names = {text: name for name, text in vars(prompts).items() if isinstance(text, str)}
    calls = [names.get(r["messages"][0]["content"]) for r in fake_openai.requests]
    # a first question is understood and a chain of two questions routed by the rule; the
    # chain gets both votes; the model verifies the reworded sentence the rule cannot find
    assert calls == ["PLAN", "BRIDGE", "EVALUATE", "EVALUATE_STRICT", "GENERATE", "VERIFY"]
    assert [e for e in logs if e["event"] == "llm_fallback"] == []


def test_llm_outage_still_answers_with_the_offline_rules_and_logs_each_fallback(
        kb_pool: ConnectionPool, embedder: Any, fake_openai: FakeOpenAI) -> None:
    fake_openai.respond_with(lambda body: Reply.error(500, "model overloaded"))
    with capture_logs() as logs:
        degraded = llm_agent(kb_pool, embedder, fake_openai).ask(
            Question(text=TWO_HOP, thread_id="t-llm-2", kb="samples"))
    offline = build_agent(kb_pool, embedder).ask(
        Question(text=TWO_HOP, thread_id="t-offline", kb="samples"))
    assert degraded.text == offline.text
    assert degraded.refused is offline.refused
    assert [c.doc_id for c in degraded.citations] == [c.doc_id for c in offline.citations]
    fallbacks = [e for e in logs if e["event"] == "llm_fallback"]
    # understand and route are the rule's for this question; verify asks no model for a
    # draft the offline rule finds in its passages
    assert {e["step"] for e in fallbacks} >= {"plan", "evaluate", "generate"}
    # The first step meets the outage; the breaker spares the rest from waiting on it.
    assert fallbacks[0]["reason"] == "http_500"
    assert {e["reason"] for e in fallbacks[1:]} == {"circuit_open"}
    assert len(fake_openai.requests) == 2


def _quote_best(body: dict[str, Any]) -> ScriptItem:
    """A model that finds the pool enough and answers by quoting its best passage."""
    system = body["messages"][0]["content"]
    payload = json.loads(body["messages"][1]["content"])
    if system in (prompts.EVALUATE, prompts.EVALUATE_STRICT):
        return {"sufficient": True, "certain": True}
    if system == prompts.GENERATE:
        best = payload["passages"][0]
        first = best["text"].strip().split("。")[0] + "。"
        return {"refused": False, "sentences": [{"text": first, "cites": [best["n"]]}]}
    return Reply.error(400, "this step should not reach the model")


def test_a_simple_first_question_costs_one_vote_and_the_answer(
        kb_pool: ConnectionPool, embedder: Any, fake_openai: FakeOpenAI) -> None:
    fake_openai.respond_with(_quote_best)
    result = llm_agent(kb_pool, embedder, fake_openai).ask(
        Question(text="Redis 内存满了应该怎么处理", thread_id="t-llm-3", kb="samples"))
    assert result.refused is False
    names = {text: name for name, text in vars(prompts).items() if isinstance(text, str)}
    # understood, routed and planned by the rule; the rule verifies the quoted sentence
    assert [names.get(r["messages"][0]["content"]) for r in fake_openai.requests] == [
        "EVALUATE", "GENERATE"]


INVENTED = "通常由值班工程师在十分钟之内处理完毕，并且无需任何人审批确认。"


def test_the_answer_streams_sentence_by_sentence_and_never_shows_an_unchecked_one(
        kb_pool: ConnectionPool, embedder: Any, fake_openai: FakeOpenAI) -> None:
    drafts: list[list[str]] = []
    verify_at: list[float] = []

    def model(body: dict[str, Any]) -> ScriptItem:
        system = body["messages"][0]["content"]
        if system == prompts.GENERATE:
            reply = _quote_best(body)
            assert isinstance(reply, dict)
            sentences = reply["sentences"]
            if not drafts:  # the first draft adds a sentence no passage holds
                sentences = [*sentences, {"text": INVENTED, "cites": sentences[0]["cites"]}]
            drafts.append([s["text"] for s in sentences])
            return {"refused": False, "sentences": sentences}
        if system == prompts.VERIFY:
            verify_at.append(time.monotonic())
            return {"supported": False, "unsupported": [INVENTED]}
        return _quote_best(body)

    fake_openai.respond_with(model)
    fake_openai.chunk_chars, fake_openai.chunk_delay_s = 6, 0.03  # a model writing
    shown: list[tuple[float, str]] = []
    agent = llm_agent(kb_pool, embedder, fake_openai)
    result = agent.ask(Question(text="Redis 内存满了应该怎么处理", thread_id="t-llm-4",
                                kb="samples"),
                       on_stage=lambda e: e.answer and shown.append((time.monotonic(), e.answer)))
    assert len(drafts) == 2  # the rejected draft was written again without the sentence
    assert all(INVENTED not in text for _, text in shown)
    first = shown[0][1]
    assert first == drafts[0][0] + "[1]"  # the quoted sentence, its document numbered
    assert shown[0][0] < verify_at[0]  # shown before the whole draft went to verify
    assert result.text == shown[-1][1]
    generate = [r for r in fake_openai.requests if r["messages"][0]["content"] == prompts.GENERATE]
    assert [bool(r.get("stream")) for r in generate] == [True, False]
