"""Translated question terms count in the offline rules: a Chinese question is covered by
an English passage holding the translations, and the reverse (no I/O)."""

from __future__ import annotations

from agent.engine import OfflineEngine
from agent.state import Draft, Passage
from agent.text import alternatives_per_term, content_terms, term_hits

E = OfflineEngine()

GREENHOUSE_EN = ("The rooftop greenhouse is open to staff on weekdays. "
                 "Watering duty rotates weekly; the rota hangs next to the seed cabinet.")
GREENHOUSE_ZH = "屋顶温室仅在工作日开放。浇水值日每周轮换，排班表贴在种子柜旁边。"
PARKING_EN = "Visitor parking is on level B2. Staff badges open the barrier at the east ramp."


def passage(chunk_id: int, text: str, doc_id: str, title: str = "") -> Passage:
    return Passage(chunk_id=chunk_id, doc_id=doc_id, title=title, source=f"{doc_id}.md",
                   doc_type="document", heading_path=[], text=text, score=1.0, rank=chunk_id,
                   round=1, sub_id="q1")


def answer(question: str, passages: list[Passage],
           translations: dict[str, list[str]] | None) -> Draft:
    u = E.understand({"question": question, "history": []})
    if translations is not None:
        u["translated_terms"] = alternatives_per_term(content_terms(u["query"]), translations)
    return E.generate({"question": question, "understanding": u, "route": "single_retrieval",
                       "queries": [u["query"]], "passages": passages, "attempt": 0,
                       "rejected": []})


def test_a_translated_phrase_stands_for_each_of_its_words() -> None:
    per_term = alternatives_per_term(["rooftop", "greenhouse", "open"],
                                     {"rooftop greenhouse": ["屋顶", "温室"]})
    assert per_term == {"rooftop": ["屋顶", "温室"], "greenhouse": ["屋顶", "温室"]}


def test_a_lone_chinese_character_stands_for_nothing() -> None:
    assert alternatives_per_term(["greenhouse"], {"greenhouse": ["温", "温室"]}) == {
        "greenhouse": ["温室"]}


def test_a_chinese_term_is_held_by_its_english_translation_as_a_whole_word() -> None:
    alternatives = {"浇水": ["watering"], "温室": ["greenhouse"]}
    assert term_hits(["浇水", "温室"], GREENHOUSE_EN, alternatives) == {"浇水", "温室"}
    # "house" is a word of its own: "greenhouse" does not hold it
    assert term_hits(["房子"], GREENHOUSE_EN, {"房子": ["house"]}) == set()


def test_a_chinese_question_is_answered_from_the_english_passage_holding_its_translations(
) -> None:
    question = "温室浇水值日怎么排？"
    pool = [passage(1, PARKING_EN, "parking"), passage(2, GREENHOUSE_EN, "greenhouse")]
    translations = {"温室": ["greenhouse"], "浇水": ["watering"], "值日": ["duty"]}
    draft = answer(question, pool, translations)
    assert not draft["refused"]
    assert "Watering duty rotates weekly" in draft["text"]
    assert draft["sentences"][0]["cites"] == [2]
    # Without the translations nothing in the English pool holds the question.
    assert answer(question, pool, None)["refused"]


def test_an_english_question_is_answered_from_the_chinese_passage_holding_its_translations(
) -> None:
    question = "Who does the watering in the rooftop greenhouse?"
    pool = [passage(1, GREENHOUSE_ZH, "greenhouse-zh")]
    translations = {"watering": ["浇水"], "rooftop": ["屋顶"], "greenhouse": ["温室"]}
    draft = answer(question, pool, translations)
    assert not draft["refused"]
    assert "浇水值日" in draft["text"]
    assert answer(question, pool, None)["refused"]


def test_translations_the_pool_lacks_do_not_make_an_off_topic_pool_answerable() -> None:
    question = "温室浇水值日怎么排？"
    pool = [passage(1, PARKING_EN, "parking")]
    translations = {"温室": ["greenhouse"], "浇水": ["watering"], "值日": ["duty"]}
    assert answer(question, pool, translations)["refused"]
