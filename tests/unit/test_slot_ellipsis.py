"""An ellipsis naming a new value for the earlier question's slot is that question again,
with the new value in place of the old one (never both searched side by side)."""

from __future__ import annotations

from agent.engine import OfflineEngine
from agent.offline.ellipsis import substitute
from agent.state import Passage, TopicEvidence, Turn, Understanding

E = OfflineEngine()
LOST = TopicEvidence(confident=False, overlap=True)


def _turn(question: str, entities: list[str], rewritten: str | None = None) -> Turn:
    cited = [{"n": 1, "doc_id": "rules", "title": "Rules", "source": "rules", "chunk_ids": [1]}]
    return Turn(question=question, rewritten=rewritten or question, entities=entities,
                answer="...", cited=cited, refused=False,  # type: ignore[typeddict-item]
                route="single_retrieval")


def _understand(question: str, history: list[Turn]) -> Understanding:
    return E.understand({"question": question, "history": history, "evidence": LOST})


def test_a_chinese_sibling_with_the_same_head_takes_the_old_words_place() -> None:
    assert substitute("那探亲假呢？", "zh", "病假最多能请几天？") == "探亲假最多能请几天？"
    assert substitute("那八百块的呢？", "zh", "三千块的发票要谁签字？") == "八百块的发票要谁签字？"


def test_a_number_in_english_replaces_the_number_it_stands_beside() -> None:
    assert substitute("And for Level 3?", "en", "What is the meal budget for Level 2 staff?") \
        == "What is the meal budget for Level 3 staff?"
    assert substitute("What about 2024?", "en", "How many interns joined in 2023?") \
        == "How many interns joined in 2024?"


def test_a_follow_up_with_a_word_of_its_own_is_not_a_slot_change() -> None:
    # 签字 is new and no sibling of anything asked before: the question asks something else.
    assert substitute("那探亲假要谁签字？", "zh", "病假最多能请几天？") is None
    assert substitute("What about contractors?", "en", "How many days of leave do staff get?") \
        is None
    # Nothing new at all: nothing to put in a slot.
    assert substitute("病假呢？", "zh", "病假最多能请几天？") is None


def test_words_of_different_heads_are_not_siblings() -> None:
    assert substitute("那发票呢？", "zh", "病假最多能请几天？") is None


def test_understand_restates_the_earlier_question_and_borrows_nothing_beside_it() -> None:
    history = [_turn("病假最多能请几天？", ["病假", "最多"])]
    u = _understand("那探亲假呢？", history)
    assert u["is_followup"]
    assert u["query"] == "探亲假最多能请几天？"
    assert u.get("restated") == "探亲假最多能请几天？"
    assert "病假" not in u["entities"]
    assert u["implicit_context"] == []


def test_a_chain_of_slot_changes_reads_the_latest_restatement() -> None:
    history = [_turn("病假最多能请几天？", ["病假", "最多"]),
               _turn("那探亲假呢？", ["探亲假", "最多"], rewritten="探亲假最多能请几天？")]
    assert _understand("婚假呢？", history)["query"] == "婚假最多能请几天？"


def test_a_pronoun_follow_up_is_still_rewritten_by_the_thread_topic() -> None:
    history = [_turn("病假最多能请几天？", ["病假", "最多"])]
    u = _understand("它带薪吗？", history)
    assert "restated" not in u
    assert "病假" in u["query"]


def _row_passage(doc_id: str, text: str) -> Passage:
    return Passage(chunk_id=1, doc_id=doc_id, title="2027 年班车时刻", source=f"{doc_id}.md",
                   doc_type="document", heading_path=["班车时刻"], text=text, score=1.0,
                   rank=0, round=1, sub_id="q1")


SHUTTLE = _row_passage("shuttle", (
    "| 线路 | 首班车 | 末班车 |\n|---|---|---|\n"
    "| 东线 | 07:10 | 20:30 |\n| 西线 | 07:40 | 21:10 |\n| 南线 | 08:00 | 19:50 |\n"))


def test_a_question_asked_as_it_stands_in_the_threads_document_reads_the_threads_row(
        ) -> None:
    west = Turn(question="西线首班车几点？", rewritten="西线首班车几点？",
                entities=["西线", "首班车"], answer="西线：首班车 07:40", refused=False,
                route="single_retrieval",
                cited=[{"n": 1, "doc_id": "shuttle", "title": "2027 年班车时刻",  # type: ignore[list-item]
                        "source": "shuttle.md", "chunk_ids": [1]}])
    u = E.understand({"question": "末班车几点？", "history": [west],
                      "evidence": TopicEvidence(confident=True, overlap=True)})
    assert not u["is_followup"]
    assert u["query"] == "末班车几点？"  # the thread's words are never searched
    assert "西线" in u["thread_context"]["words"]
    first = E.generate({"question": "末班车几点？", "understanding": u,
                        "route": "single_retrieval", "queries": [u["query"]],
                        "passages": [SHUTTLE], "attempt": 0, "rejected": []})
    assert first["sentences"][0]["text"].startswith("西线")
    # Another document cited before: its words break no tie here.
    elsewhere = {**west, "cited": [{**west["cited"][0], "doc_id": "canteen"}]}
    u = E.understand({"question": "末班车几点？", "history": [elsewhere],  # type: ignore[list-item]
                      "evidence": TopicEvidence(confident=True, overlap=False)})
    other = E.generate({"question": "末班车几点？", "understanding": u,
                        "route": "single_retrieval", "queries": [u["query"]],
                        "passages": [SHUTTLE], "attempt": 0, "rejected": []})
    assert other["sentences"][0]["text"].startswith("东线")


def test_a_condition_names_the_new_value_of_the_slot() -> None:
    # "那要是…呢？" is "what if it is …?": 要是 is the opening, not a word asked about, and a
    # number is replaced where it stands beside Chinese characters ("1200元").
    assert substitute("那要是5000元呢？", "zh", "采购1200元的显示器要谁批？") \
        == "采购5000元的显示器要谁批？"
    assert substitute("如果是夜班呢？", "zh", "白班补贴多少？") == "夜班补贴多少？"


def test_a_new_one_character_modifier_replaces_the_old_one_before_the_same_head() -> None:
    # The segmenter cuts 主 / 副 off as words of their own: the follow-up seems to name
    # only 值守, which the earlier question already holds.
    assert substitute("那副值守呢？", "zh", "主值守每周补贴多少？") == "副值守每周补贴多少？"
    # A word holding the old one takes its modifier's place too, not its own beside it.
    assert substitute("那副组长呢？", "zh", "正组长每月津贴多少？") == "副组长每月津贴多少？"
    # A longer word before the head may be a verb or a place: left to the thread's topic.
    assert substitute("那周末值守呢？", "zh", "申请值守补贴要多久？") is None


def test_a_restated_slot_keeps_its_new_value_whole_for_the_next_turn() -> None:
    history = [_turn("主值守每周补贴多少？", ["值守", "每周", "补贴"])]
    u = _understand("那副值守呢？", history)
    assert u["query"] == "副值守每周补贴多少？"
    assert "副值守" in u["entities"]


def test_a_modifier_marked_by_de_stands_where_the_earlier_modifier_stood() -> None:
    # "那X的呢？" asks about "the X one": X modifies the earlier question's noun, in place of
    # the word that modified it, though the two share no character.
    assert substitute("那北京的呢？", "zh", "上海的住宿标准是多少？") == "北京的住宿标准是多少？"
    assert substitute("那端午的呢？", "zh", "中秋值班安排是什么？") == "端午值班安排是什么？"
    # Without 的 nothing marks the slot; a superlative modifies no noun.
    assert substitute("那端午呢？", "zh", "中秋值班安排是什么？") is None
    assert substitute("那发票的呢？", "zh", "病假最多能请几天？") is None
