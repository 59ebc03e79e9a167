"""Whether a question names a topic: the classes of its words, then the KB's spread of the
few topic words it has; and who may decide to ask back (the rule for both engines)."""

from __future__ import annotations

import pytest

from agent.engine import OfflineEngine
from agent.offline.plan import filters_for
from agent.offline.route import clarify_options
from agent.state import Facets, KbOption, RouteInput, Spread
from agent.vague import needs_kb_evidence, specificity
from tests.fakes.openai_server import FakeOpenAI
from tests.unit.test_llm_engine import engine_for, route_input

E = OfflineEngine()
FACETS = Facets(doc_types=["faq", "policy"], titles=["Badge FAQ", "Visitor policy"],
                sources=[])


def spread(documents: int, **holding: int) -> Spread:
    return Spread(documents=documents, holding=dict(holding))


@pytest.mark.parametrize("question", [
    "Who signs off on these?", "How much does it cost?", "报名截止是哪天？", "这个怎么搞？",
    "Where are the templates?", "我要怎么申请", "What's the approval process?",
    "When is it due?", "需要带什么？", "谁负责？", "Who owns it?",
])
def test_words_that_need_something_to_point_at_name_no_topic(question: str) -> None:
    assert specificity(question) == "no_topic"
    assert needs_kb_evidence(question) == []


@pytest.mark.parametrize("question", [
    "badge?", "访客怎么登记", "parking fee?", "How do I renew my badge?", "食堂几点开门",
    "出差带电脑", "去哪里领工牌",
])
def test_one_word_of_its_own_names_a_topic(question: str) -> None:
    assert specificity(question) == "names_topic"


def test_inflections_fall_into_the_class_of_their_word() -> None:
    for question in ("Who approved it?", "Any deadlines?", "What are the fees?",
                     "Where do I register?", "registering?"):
        assert specificity(question) == "no_topic", question


def test_a_word_held_by_a_large_share_of_the_documents_is_broad_there() -> None:
    question = "badge rules?"
    assert needs_kb_evidence(question) == ["badge"]
    assert specificity(question, spread(20, badge=9)) == "broad_in_kb"
    assert specificity(question, spread(20, badge=2)) == "names_topic"
    # In a handful of documents any word is in a large share of them.
    assert specificity(question, spread(4, badge=3)) == "names_topic"


def test_a_deictic_whose_word_several_documents_hold_points_at_nothing() -> None:
    assert specificity("那个门禁卡呢", spread(20, 门禁卡=3)) == "points_at_nothing"
    assert specificity("那个门禁卡呢", spread(20, 门禁卡=1)) == "names_topic"
    assert specificity("门禁卡呢", spread(20, 门禁卡=3)) == "names_topic"


def _route(question: str, **extra: object) -> str:
    inp = RouteInput(question=question, facets=FACETS,
                     understanding=E.understand({"question": question, "history": []}))
    inp.update(extra)  # type: ignore[typeddict-item]
    return E.route(inp)["route"]


def test_only_a_thread_without_a_topic_is_asked_back() -> None:
    assert _route("Who signs off on these?") == "clarify"
    assert _route("Who signs off on these?", thread_topic=["visitor", "badge"]) != "clarify"
    # A greeting or a refused turn lends no topic.
    assert _route("Who signs off on these?", thread_topic=[]) == "clarify"


def test_the_model_may_find_a_vague_question_clear_but_not_a_clear_one_vague(
        fake_openai: FakeOpenAI) -> None:
    engine = engine_for(fake_openai)
    even = route_input("公司 VPN 连不上怎么办")
    even["knowledge_bases"] = [KbOption(name="it", about="", share=0.5),
                               KbOption(name="hr", about="", share=0.45)]
    fake_openai.script({"route": "clarify", "clarify_question": "哪一个？",
                        "options": ["runbook"]})
    assert engine.route(even)["route"] == "single_retrieval"
    fake_openai.script({"route": "single_retrieval"})
    assert engine.route(route_input("这个怎么搞？"))["route"] == "single_retrieval"


def test_kinds_of_document_are_offered_in_the_askers_language() -> None:
    facets = Facets(doc_types=["document", "faq", "policy"], titles=["Alpha", "Beta"],
                    sources=[])
    zh = clarify_options("这个怎么搞？", facets, language="zh")
    assert zh == ["常见问题（faq）", "制度政策（policy）"]
    # The reply keeps the type, so the search is filtered by it.
    assert filters_for(f"这个怎么搞？ {zh[1]}", facets)["doc_types"] == ["policy"]
    assert clarify_options("How does it work?", facets) == ["faq", "policy"]
