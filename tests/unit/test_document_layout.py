"""Answers built from document structure: FAQ answers, table rows with headers, steps."""

from __future__ import annotations

from agent.engine import OfflineEngine
from agent.offline.asked import value_pattern
from agent.offline.layout import faq_pairs, quotable_units, readable, table_rows
from agent.offline.verify import support
from agent.state import Passage
from agent.text import split_sentences
from tests.unit.offline_ask import ask

E = OfflineEngine()

CANTEEN_FAQ = (
    "# Canteen FAQ\n\n"
    "**Q: When does the canteen open?**\n"
    "Breakfast is served from 7:30, lunch from 11:30.\n\n"
    "**Can I bring a guest?**\n"
    "Yes, guests eat free on Fridays; register them at reception.\n\n"
    "**问：餐卡丢了怎么办？** 答：到行政前台挂失，补卡收取 20 元工本费。\n")

PARKING_TABLE = (
    "## 停车费标准\n\n"
    "| 车位类型 | 月租 | 临停 |\n|---|---|---|\n"
    "| 地面车位 | 300 元 | 5 元/小时 |\n"
    "| 地下车位 | 450 元 | 8 元/小时 |\n")


def passage(chunk_id: int, text: str, *, title: str, doc_id: str, rank: int = 0) -> Passage:
    return Passage(chunk_id=chunk_id, doc_id=doc_id, title=title, source=f"{doc_id}.md",
                   doc_type="faq", heading_path=[title], text=text, score=1.0, rank=rank,
                   round=1, sub_id="q1")


def test_faq_pairs_hold_bold_and_prefixed_questions_with_their_answers() -> None:
    pairs = faq_pairs(CANTEEN_FAQ)
    assert [p.question for p in pairs] == ["When does the canteen open?", "Can I bring a guest?",
                                          "餐卡丢了怎么办？"]
    assert pairs[0].answer == "Breakfast is served from 7:30, lunch from 11:30."
    assert pairs[2].answer == "到行政前台挂失，补卡收取 20 元工本费。"


def test_a_question_line_is_never_a_quotable_unit() -> None:
    texts = [u.text for u in quotable_units(CANTEEN_FAQ, split_sentences)]
    assert not any(t.rstrip("*").endswith(("?", "？")) for t in texts)
    assert "Yes, guests eat free on Fridays; register them at reception." in texts


def test_faq_question_is_answered_with_its_answer_not_the_question() -> None:
    pool = [passage(1, CANTEEN_FAQ, title="Canteen FAQ", doc_id="canteen")]
    draft = ask("Can I bring a guest to the canteen?", pool)
    assert not draft["refused"]
    assert draft["sentences"][0]["text"].startswith("Yes, guests eat free on Fridays")
    assert "?" not in draft["text"]


def test_table_rows_keep_their_headers_when_quoted() -> None:
    rows = table_rows(PARKING_TABLE)
    assert rows[1] == (["车位类型", "月租", "临停"], ["地下车位", "450 元", "8 元/小时"])
    units = [u.text for u in quotable_units(PARKING_TABLE, split_sentences)]
    assert "地下车位：月租 450 元；临停 8 元/小时" in units
    # The rendered row counts as found in its passage.
    assert support("地下车位：月租 450 元；临停 8 元/小时", readable(PARKING_TABLE)) >= 0.99


def test_table_cell_answer_names_its_row_and_column() -> None:
    pool = [passage(1, PARKING_TABLE, title="停车管理规定", doc_id="parking")]
    draft = ask("地下车位月租多少钱？", pool)
    assert not draft["refused"]
    assert draft["sentences"][0]["text"].startswith("地下车位：月租 450 元")


def test_value_pattern_reads_the_kind_of_value_asked() -> None:
    days = value_pattern("端午节放几天假？")
    assert days is not None
    assert days.search("共 3天")
    assert not days.search("6月19日")
    weeks = value_pattern("How long is the notice period?")
    assert weeks is not None
    assert weeks.search("four weeks")
    assert not weeks.search("the week")
    assert value_pattern("Who signs the contract?") is None


def test_numbered_steps_are_one_per_line() -> None:
    steps = ("## 补办门禁卡\n\n1. 在 OA 提交补卡申请。\n2. 主管审批后到行政前台领卡。\n"
             "3. 旧卡自动作废。\n")
    pool = [passage(1, steps, title="门禁卡管理", doc_id="badge")]
    draft = ask("门禁卡丢了如何补办？", pool)
    assert draft["text"].splitlines()[0].startswith("1. 在 OA 提交补卡申请。")
    assert [line[:2] for line in draft["text"].splitlines()] == ["1.", "2.", "3."]


def test_an_faq_answer_is_quoted_once_without_its_label() -> None:
    pool = [passage(1, CANTEEN_FAQ, title="Canteen FAQ", doc_id="canteen")]
    draft = ask("餐卡丢了怎么挂失？", pool)
    assert not draft["refused"]
    assert draft["text"].count("到行政前台挂失") == 1
    assert "答：" not in draft["text"]
