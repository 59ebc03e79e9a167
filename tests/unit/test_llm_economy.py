"""Rules first in the LLM engine: a step asks the model only where the offline rule is
unsure. Each test counts the requests the local OpenAI-compatible server received."""

from __future__ import annotations

import json

from agent import llm_prompts as prompts
from agent.state import Draft, EvaluateInput, KbOption, Passage, Plan, Sentence, SubQuestion
from tests.fakes.openai_server import FakeOpenAI
from tests.unit.test_llm_engine import (
    CHAINED,
    EARLIER,
    FACETS,
    OFFLINE,
    POLICY,
    RUNBOOK,
    engine_for,
    route_input,
    understanding,
)

VPN = "公司 VPN 连不上怎么办"
VPN_DOC = Passage(
    chunk_id=41, doc_id="vpn-faq", title="VPN 常见问题", source="kb/vpn-faq.md", doc_type="faq",
    heading_path=["VPN 常见问题", "连不上"],
    text="公司 VPN 连不上时，先确认客户端是最新版本，再重启网卡后重新登录。", score=0.9, rank=0,
    round=1, sub_id="q1")
PRINTER = Passage(
    chunk_id=42, doc_id="printer", title="打印机使用说明", source="kb/printer.md",
    doc_type="faq", heading_path=["打印机使用说明"],
    text="三楼打印机需要刷工卡才能取件。", score=0.4, rank=0, round=1, sub_id="q1")


def simple_evaluate(passages: list[Passage], question: str = VPN) -> EvaluateInput:
    plan = Plan(sub_questions=[SubQuestion(id="q1", query=question, depends_on=[],
                                           filters={"doc_types": [], "sources": []})])
    return EvaluateInput(question=question, understanding=understanding(question), plan=plan,
                         passages=passages, new_chunk_ids=[p["chunk_id"] for p in passages],
                         round=1, max_rounds=3)


def systems(fake: FakeOpenAI) -> list[str]:
    names = {text: name for name, text in vars(prompts).items() if isinstance(text, str)}
    return [names.get(r["messages"][0]["content"], "?") for r in fake.requests]


def test_a_first_question_of_a_thread_is_understood_by_the_rule(fake_openai: FakeOpenAI) -> None:
    out = engine_for(fake_openai).understand({"question": VPN, "history": []})
    assert out == OFFLINE.understand({"question": VPN, "history": []})
    assert fake_openai.requests == []


def test_a_follow_up_is_still_rewritten_by_the_model(fake_openai: FakeOpenAI) -> None:
    fake_openai.script({"query": "Redis 内存满了 重启有用吗", "is_followup": True})
    out = engine_for(fake_openai).understand({"question": "重启有用吗", "history": [EARLIER]})
    assert out["query"] == "Redis 内存满了 重启有用吗"
    assert systems(fake_openai) == ["UNDERSTAND"]


def test_a_plain_question_and_a_comparison_are_routed_by_the_rule(
        fake_openai: FakeOpenAI) -> None:
    engine = engine_for(fake_openai)
    assert engine.route(route_input(VPN))["route"] == "single_retrieval"
    assert engine.route(route_input("年假和病假有什么区别"))["route"] == "multi_retrieval"
    assert engine.route(route_input("你好"))["route"] == "direct_answer"
    assert fake_openai.requests == []


def test_a_question_the_rule_would_clarify_or_reads_as_a_chain_asks_the_model(
        fake_openai: FakeOpenAI) -> None:
    fake_openai.script({"route": "single_retrieval"}, {"route": "multi_retrieval"})
    engine = engine_for(fake_openai)
    assert engine.route(route_input("那个制度呢"))["route"] == "single_retrieval"
    assert engine.route(route_input(CHAINED))["route"] == "multi_retrieval"
    assert systems(fake_openai) == ["ROUTE", "ROUTE"]


def test_several_kbs_ask_the_model_only_when_none_stands_out(fake_openai: FakeOpenAI) -> None:
    engine = engine_for(fake_openai)
    clear = route_input(VPN)
    clear["knowledge_bases"] = [KbOption(name="it", about="", share=0.9),
                                KbOption(name="hr", about="", share=0.1)]
    assert engine.route(clear)["route"] == "single_retrieval"
    assert fake_openai.requests == []
    fake_openai.script({"route": "single_retrieval", "knowledge_bases": ["hr"]})
    even = route_input(VPN)
    even["knowledge_bases"] = [KbOption(name="it", about="", share=0.5),
                               KbOption(name="hr", about="", share=0.45)]
    assert engine.route(even).get("kbs") == ["hr"]
    sent = json.loads(fake_openai.requests[0]["messages"][1]["content"])
    assert [kb["name"] for kb in sent["knowledge_bases"]] == ["it", "hr"]


def test_a_simple_question_is_planned_by_the_rule_a_multi_one_by_the_model(
        fake_openai: FakeOpenAI) -> None:
    engine = engine_for(fake_openai)
    out = engine.plan({"question": VPN, "understanding": understanding(VPN),
                       "route": "single_retrieval", "facets": FACETS})
    assert [s["query"] for s in out["sub_questions"]] == [VPN]
    assert fake_openai.requests == []
    fake_openai.script({"sub_questions": [{"id": "q1", "query": "年假"},
                                          {"id": "q2", "query": "病假"}]})
    question = "年假和病假有什么区别"
    out = engine.plan({"question": question, "understanding": understanding(question),
                       "route": "multi_retrieval", "facets": FACETS})
    assert [s["query"] for s in out["sub_questions"]] == ["年假", "病假"]
    assert systems(fake_openai) == ["PLAN"]


def test_one_certain_vote_decides_a_simple_question_the_rule_finds_answered(
        fake_openai: FakeOpenAI) -> None:
    inp = simple_evaluate([VPN_DOC])
    assert OFFLINE.evaluate(inp)["sufficient"] is True
    fake_openai.script({"sufficient": True, "certain": True}, {"sufficient": False})
    out = engine_for(fake_openai).evaluate(inp)
    assert out["sufficient"] is True
    assert systems(fake_openai) == ["EVALUATE"]


def test_an_uncertain_vote_gets_the_strict_second_vote(fake_openai: FakeOpenAI) -> None:
    fake_openai.script({"sufficient": True, "certain": False},
                       {"sufficient": False, "missing": ["客户端下载地址"]})
    out = engine_for(fake_openai).evaluate(simple_evaluate([VPN_DOC]))
    assert out["sufficient"] is False
    assert systems(fake_openai) == ["EVALUATE", "EVALUATE_STRICT"]


def test_a_vote_the_rule_disagrees_with_gets_the_strict_second_vote(
        fake_openai: FakeOpenAI) -> None:
    inp = simple_evaluate([PRINTER])
    assert OFFLINE.evaluate(inp)["sufficient"] is False
    fake_openai.script({"sufficient": True, "certain": True}, {"sufficient": True})
    out = engine_for(fake_openai).evaluate(inp)
    assert out["sufficient"] is True
    assert systems(fake_openai) == ["EVALUATE", "EVALUATE_STRICT"]


def test_a_chained_question_always_gets_the_strict_vote(fake_openai: FakeOpenAI) -> None:
    # The rule and a lenient first vote can agree on a pool missing the second hop.
    inp = simple_evaluate([RUNBOOK, POLICY], question=CHAINED)
    fake_openai.script({"sufficient": True, "certain": True},
                       {"sufficient": False, "missing": ["approver"]})
    assert engine_for(fake_openai).evaluate(inp)["sufficient"] is False
    assert systems(fake_openai) == ["EVALUATE", "EVALUATE_STRICT"]


def test_verify_sends_the_model_only_the_sentences_the_rule_cannot_match(
        fake_openai: FakeOpenAI) -> None:
    found = Sentence(text="回滚需要二次审批，由变更委员会成员或技术总监进行。", cites=[2])
    added = Sentence(text="二次审批通常在半小时内完成。", cites=[2])
    draft = Draft(sentences=[found, added], refused=False, text="…")
    inp = {"question": "回滚要审批吗", "draft": draft, "passages": [RUNBOOK, POLICY]}
    fake_openai.script({"supported": False, "unsupported": [added["text"]]})
    out = engine_for(fake_openai).verify(inp)  # type: ignore[arg-type]
    assert out["unsupported"] == [added["text"]]
    sent = json.loads(fake_openai.requests[0]["messages"][1]["content"])
    assert [s["text"] for s in sent["sentences"]] == [added["text"]]
