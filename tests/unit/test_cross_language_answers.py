"""Choosing the answer sentences when the question and the document are in different
languages (no I/O): the asked kind of value, table rows by their first header, and step
lists in the document's order."""

from __future__ import annotations

from agent.engine import OfflineEngine
from agent.offline.kinds import asked_value
from agent.state import Draft, Passage
from agent.text import alternatives_per_term, content_terms

E = OfflineEngine()


def passage(chunk_id: int, text: str, doc_id: str, title: str, heading_path: list[str], *,
            rank: int) -> Passage:
    return Passage(chunk_id=chunk_id, doc_id=doc_id, title=title, source=f"{doc_id}.md",
                   doc_type="document", heading_path=heading_path, text=text, score=1.0,
                   rank=rank, round=1, sub_id="q1")


def answer(question: str, passages: list[Passage], translations: dict[str, list[str]]
           ) -> Draft:
    u = E.understand({"question": question, "history": []})
    u["translated_terms"] = alternatives_per_term(content_terms(u["query"]), translations)
    return E.generate({"question": question, "understanding": u, "route": "single_retrieval",
                       "queries": [u["query"]], "passages": passages, "attempt": 0,
                       "rejected": []})


def test_a_chinese_count_is_found_written_in_english() -> None:
    weeks = asked_value("图书馆的书最多能借几周？")
    assert weeks is not None
    assert weeks.search("Books may be kept for three weeks.")
    assert weeks.search("Loans run 3 weeks.")
    assert weeks.search("借期 3 周")
    assert not weeks.search("Week 3 is the reading week.")


def test_an_english_count_is_found_written_in_chinese() -> None:
    days = asked_value("How many days can a visitor badge be used?")
    assert days is not None
    assert days.search("访客证有效期为 5 天。")
    assert days.search("A badge works for two days.")
    assert not days.search("访客证在前台领取。")


def test_an_amount_of_money_is_found_in_either_language() -> None:
    for question in ("停车一天多少钱？", "How much is a day of parking?"):
        money = asked_value(question)
        assert money is not None, question
        assert money.search("Parking costs CNY 25 a day.")
        assert money.search("停车每天 25 元。")
        assert not money.search("Parking is on level 2.")


def test_a_date_answers_when() -> None:
    when = asked_value("食堂什么时候开门？")
    assert when is not None
    assert when.search("The canteen opens at 7:30 on weekdays.")
    assert when.search("食堂 3月2日 起恢复营业。")
    assert asked_value("What is the canteen called?") is None


def test_a_chinese_count_question_quotes_the_english_sentence_holding_the_count() -> None:
    # Both sentences hold "library"; only the second holds a number of weeks.
    text = ("Library members show their staff badge at the front desk. "
            "Library loans last three weeks and can be renewed once.")
    pool = [passage(1, text, "library", "Library Rules", ["Library Rules", "Borrowing"], rank=0)]
    draft = answer("图书馆借书能借几周？", pool, {"图书馆": ["library"], "借书": ["borrow"]})
    assert not draft["refused"]
    assert draft["sentences"][0]["text"].startswith("Library loans last three weeks")


TABLE = """Opening hours differ by campus.

| Campus | Opening hours |
|---|---|
| North | 07:00–22:00 |
| South | 08:00–20:00 |
"""


def test_a_table_row_is_about_its_first_column_header() -> None:
    shuttle = passage(1, "The campus shuttle runs every 20 minutes between the gates.",
                      "shuttle", "Campus Shuttle", ["Campus Shuttle"], rank=0)
    hours = passage(2, TABLE, "buildings", "Buildings", ["Buildings", "Hours"], rank=1)
    draft = answer("每个校区几点开门？", [shuttle, hours],
                   {"校区": ["campus"], "开门": ["opening"]})
    assert not draft["refused"]
    first = draft["sentences"][0]
    assert first["text"].startswith("North: Opening hours 07:00–22:00")
    assert first["cites"] == [2]


GUEST = """1. Tell reception at once or call 9 from any house phone.
2. Keep your booking number ready; reception checks your passport.
3. Do not lend your new card to anyone."""
DESK = """1. Disable the lost card in the door system.
2. Issue a new card with a fresh code.
3. Note the loss in the night log."""


def test_equally_fitting_step_lists_are_quoted_in_the_documents_order() -> None:
    title = "Lost Key Card"
    # The desk's list ranks higher in the search, but the guest's list comes first in the
    # runbook: what the guest does starts the procedure.
    pool = [passage(11, GUEST, "key-card", title, [title, "Steps for the guest"], rank=4),
            passage(12, DESK, "key-card", title, [title, "Steps for the front desk"], rank=0)]
    draft = answer("房卡丢了怎么办？", pool, {"房卡": ["key card", "card"]})
    assert not draft["refused"]
    assert draft["sentences"][0]["text"].startswith("1. Tell reception at once")
    assert all(s["cites"] == [1] for s in draft["sentences"])


def test_the_refusal_gate_credits_a_term_by_the_senses_read_wide() -> None:
    # An English question over a Chinese rule: only "badge" has a narrow translation, so
    # the pool would look off-topic; read wide, "lost" and "reported" are held too.
    rule = passage(1, "门禁卡遗失后须在 24 小时内向行政部报告，行政部当天注销旧卡。",
                   "badge-rules", "门禁卡管理", ["门禁卡管理"], rank=0)
    question = "Whom is a lost door badge reported to?"
    narrow = {"badge": ["门禁卡"]}
    assert answer(question, [rule], narrow)["refused"]
    u = E.understand({"question": question, "history": []})
    terms = content_terms(u["query"])
    u["translated_terms"] = alternatives_per_term(terms, narrow)
    u["translated_senses"] = alternatives_per_term(
        terms, {**narrow, "lost": ["遗失"], "reported": ["报告"]})
    draft = E.generate({"question": question, "understanding": u, "route": "single_retrieval",
                        "queries": [u["query"]], "passages": [rule], "attempt": 0,
                        "rejected": []})
    assert not draft["refused"]
    assert "行政部报告" in draft["sentences"][0]["text"]
