"""A question asking who, how soon, where or what happens is answered by the sentence naming
someone to turn to, a time, a place or a consequence, from the document the question is
about; not by that document's opening, which holds the same topic words. The documents and
questions are written for these tests."""

from __future__ import annotations

from agent.engine import OfflineEngine
from agent.offline.answer_kinds import asked_kinds, holds_kind
from agent.offline.kinds import asked_value
from agent.question_shape import asks_how
from agent.state import Passage

BADGE = """# Missing Access Badge

Follow this guide when a staff member says that an access badge is missing or was taken.

## What the staff member does

1. Tell the front desk in #facilities-desk or ring extension 4410 straight away.
2. Keep the visitor sticker you are given until the new badge arrives.

## Issuing a new badge

A temporary badge is printed the same day; a permanent badge follows within three working
days.

## Charges

The first missing badge in two years is free of charge. Further badges cost CNY 50 each.
"""

PARKING = """# 停车场使用规定

本规定适用于园区地下停车场的员工车位。

## 违规处理

车辆占用他人车位的，第一次由保安张贴提醒；如果一个月内再次占用，将取消当季停车资格。

## 费用

员工车位每月 200 元，从工资中扣除。
"""

VISITORS = """# 访客停车

员工车位和访客车位都在地下二层，员工车位被占用时请勿占用访客车位。
"""

BADGE_ZH = """# 门禁卡管理

如果员工门禁卡被别人再次借用，将暂停门禁权限。
"""

OTHER = """# Desk Booking

Book a desk in the workplace app before 10:00 on the day. Your manager can see bookings for the
team. Unused bookings are released at noon.
"""


def _passages(*docs: tuple[str, str]) -> list[Passage]:
    out = []
    for rank, (doc_id, text) in enumerate(docs):
        title = text.splitlines()[0].lstrip("# ")
        out.append(Passage(chunk_id=rank + 1, doc_id=doc_id, title=title, source=f"{doc_id}.md",
                           doc_type="policy", heading_path=[title], text=text, score=1.0,
                           rank=rank, round=1, sub_id="q1"))
    return out


def _first_sentence(question: str, passages: list[Passage],
                    carried_from: list[str] | None = None) -> str:
    engine = OfflineEngine()
    u = engine.understand({"question": question, "history": []})
    if carried_from is not None:
        u["carried_from"] = carried_from
    draft = engine.generate({"question": question, "understanding": u,
                             "route": "single_retrieval", "queries": [u["query"]],
                             "passages": passages, "attempt": 0, "rejected": []})
    assert not draft["refused"]
    return draft["sentences"][0]["text"]


def test_the_kind_asked_is_read_from_the_question_word_in_either_language() -> None:
    # Whom to turn to, or who acts.
    assert asked_kinds("My badge is gone, who should I tell?") == ["contact"]
    assert asked_kinds("门禁卡丢了找谁补办？") == ["contact"]
    assert asked_kinds("Who signs off a new badge?") == ["who"]
    assert asked_kinds("补办门禁卡谁审批？") == ["who"]
    assert asked_kinds("not sure who to ask about parking") == ["contact"]
    assert asked_kinds("谁负责停车场？") == ["contact"]
    assert asked_kinds("who is my parking contact?") == ["contact"]
    # after a sentence or a dash of the question's own
    assert asked_kinds("My badge was taken. Who do I tell?") == ["contact"]
    assert asked_kinds("Left my badge on the bus - who do I tell?") == ["contact"]
    assert asked_kinds("How soon is a new badge ready?") == ["how_soon"]
    assert asked_kinds("补办门禁卡多久能拿到？") == ["how_soon"]
    # "when will" an event ahead of the asker comes
    assert asked_kinds("新门禁卡什么时候能寄到？") == ["how_soon"]
    assert asked_kinds("When will my parking permit arrive?") == ["how_soon"]
    assert asked_kinds("Where do I book a desk?") == ["where"]
    assert asked_kinds("工位在哪里预订？") == ["where"]
    assert asked_kinds("What happens if I park in someone else's space twice?") == [
        "consequence"]
    assert asked_kinds("再次占用别人的车位会怎样？") == ["consequence"]


def test_a_relative_who_or_a_span_asked_for_is_no_such_kind() -> None:
    # "who" after a noun describes it; "多久换一次" asks a rate, "how long" a span.
    assert asked_kinds("Can staff who work late park for free?") == []
    assert asked_kinds("门禁卡多久换一次？") == []
    assert asked_kinds("How long is the parking permit valid?") == []
    # "Who is the chairman" asks for a person by name, not a role.
    assert asked_kinds("Who is the chairman of the parking committee?") == []
    assert asked_kinds("停车管理委员会的主任是谁？") == []
    assert asked_kinds("Who won the parking-space raffle?") == []
    assert asked_kinds("车位抽签谁中了？") == []
    # "在哪天" asks a day, not a place.
    assert asked_kinds("新停车场在哪天开放？") == []
    # "什么时候可以" asks when it is allowed, which a condition answers.
    assert asked_kinds("什么时候可以申请固定车位？") == []


def test_a_sentence_holds_the_kind_by_its_wording_not_its_topic() -> None:
    assert holds_kind(["contact"], "Ring extension 4410 or post in #facilities-desk.")
    assert holds_kind(["who"], "请联系行政前台补办。")
    # A channel is where to turn, not who acts; the asker, a lower-case common noun and a
    # department's word that names no department ("财务状况") name no one.
    assert not holds_kind(["who"], "Post the request in #facilities-desk.")
    assert not holds_kind(["contact"], "It is a security incident when the staff member was away.")
    assert not holds_kind(["who"], "公司财务状况良好。")
    assert holds_kind(["how_soon"], "A temporary badge is printed the same day.")
    assert holds_kind(["how_soon"], "审核通过后，车位费在每周三统一扣除。")
    # counted back from the asker's event as well as on from it
    assert holds_kind(["how_soon"], "New starters get their badge posted two working days "
                                    "before their first day.")
    assert holds_kind(["how_soon"], "门禁卡会在入职 3 个工作日前寄出。")
    # A span the sentence counts within is no time the asker waits for.
    assert not holds_kind(["how_soon"], "The first missing badge in two years is free.")
    assert holds_kind(["where"], "Book a desk in the workplace app before 10:00.")
    assert holds_kind(["where"], "请在 OA 系统中提交停车申请。")
    assert not holds_kind(["where"], "Unused bookings are released at noon.")
    assert holds_kind(["consequence"], "如果一个月内再次占用，将取消当季停车资格。")
    # A limit ("不超过") states no consequence.
    assert not holds_kind(["consequence"], "每人每月停车不超过 20 天。")


def test_who_is_answered_by_the_step_naming_whom_to_tell_not_the_guide_opening() -> None:
    passages = _passages(("badge", BADGE), ("desks", OTHER))
    first = _first_sentence("I lost my access badge, who should I tell?", passages)
    assert "#facilities-desk" in first


def test_how_soon_is_answered_by_the_time_not_by_a_span_of_years() -> None:
    passages = _passages(("badge", BADGE), ("desks", OTHER))
    first = _first_sentence("How soon do I get a new access badge?", passages)
    assert "same day" in first


def test_a_follow_up_asking_what_happens_is_answered_from_the_thread_document() -> None:
    # The visitor-parking note ranks first and says no consequence; the badge rule says one
    # about something else; the parking rule the thread answered from says what follows a
    # second offence.
    passages = _passages(("visitors", VISITORS), ("badge-zh", BADGE_ZH), ("parking", PARKING))
    question = "员工车位被别人再次占用会怎样？"
    assert "门禁" in _first_sentence(question, passages)
    first = _first_sentence(question, passages, carried_from=["parking"])
    assert "取消当季停车资格" in first


def test_whether_the_company_covers_a_cost_asks_who_pays() -> None:
    value = asked_value("Does the company cover the cost of a missing badge?")
    assert value is not None
    assert value.search("The first missing badge in two years is free of charge.")
    assert asked_value("门禁卡丢了公司承担吗？") is not None
    passages = _passages(("badge", BADGE), ("desks", OTHER))
    first = _first_sentence("Does the company cover the cost of a missing badge?", passages)
    assert "free of charge" in first


def test_what_follows_is_not_asked_how_to_do_it() -> None:
    assert asks_how("门禁卡怎样补办？")
    assert asks_how("系统如何备份？")
    assert not asks_how("门禁卡超过三天不还会怎样？")
    assert not asks_how("车位被占用两次将如何处理？")
    assert asked_kinds("门禁卡超过三天不还会怎样？") == ["consequence"]
