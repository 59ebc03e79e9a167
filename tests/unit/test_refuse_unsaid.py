"""Answer only when the chosen sentence carries what is asked: the kind of value and the
question's anchor (agent.offline.value_kinds, agent.offline.anchors, agent.offline.carried).

Each unanswerable question below shares its topic words with the documents; its answerable
look-alike differs only in what the document says."""

from __future__ import annotations

import pytest

from agent.offline.anchors import anchors, holds, named_in
from agent.offline.value_kinds import asked_kind, carries
from agent.state import Passage
from tests.unit.offline_ask import ask


def doc(text: str, title: str = "Office handbook", n: int = 1,
        headings: list[str] | None = None) -> Passage:
    return Passage(chunk_id=n, doc_id=f"d{n}", title=title, source=f"d{n}.md",
                   doc_type="policy", heading_path=headings or [], text=text, score=1.0,
                   rank=n - 1, round=1, sub_id="q1")


HARBOR = ("The Harbor office is open on weekends for parcel deliveries only. "
          "Visitors sign in at the front desk.")
PARKING = "Staff can buy a monthly parking pass at the front desk of the Harbor office."
ABROAD = "Staff who work from abroad need HR approval in advance because of tax rules."
REMOTE = "Fully remote arrangements are reviewed every six months."
ANNUAL = "年会在杭州园区举办，每位员工可以带一位家属。"
CARPARK = "员工可在前台办理停车月卡，月卡只限一辆车。"
WEDDING = "婚假需在领证后一年内一次性休完，不能拆分。"
CLAIMS = "报销单提交后一般 5 个工作日内完成审批，进度可在 OA 中查看。"
WIFI = "Shanghai office: the guest Wi-Fi password is printed on the visitor voucher."
PAGES = ("告警级别与响应要求：\n\n| 级别 | 响应时间 |\n|---|---|\n| P1 | 5 分钟 |\n"
         "| P2 | 30 分钟 |\n| P3 | 次日 |")
HOTEL = ("| City tier | Hotel limit per night |\n|---|---|\n| Tier 1 | CNY 900 |\n"
         "| Tier 2 | CNY 600 |\n"
         "| Other | CNY 450 |")
SHANGHAI_PRINT = "上海办公室的彩色打印每人每月限 150 页。"


@pytest.mark.parametrize(("question", "passages", "missing"), [
    # The kind of value asked for is not in any sentence about the topic.
    ("When does the Harbor office open on weekends?", [doc(HARBOR)], "when"),
    ("How much does the monthly parking pass cost?", [doc(PARKING)], "how much"),
    ("How many days can staff work from abroad?", [doc(ABROAD)], "how long"),
    ("Who reviews a fully remote arrangement?", [doc(REMOTE)], "who"),
    ("年会在哪天举办？", [doc(ANNUAL, "年会通知")], "时间"),
    ("停车月卡多少钱？", [doc(CARPARK, "停车")], "金额"),
    ("婚假有几天？", [doc(WEDDING, "请假制度")], "时长"),
    ("报销单由谁审批？", [doc(CLAIMS, "报销流程")], "由谁"),
    # The question's anchor is nowhere in the documents.
    ("What is the guest Wi-Fi password at the Berlin office?", [doc(WIFI)], "Berlin"),
    ("P4 级别的告警多久内要响应？", [doc(PAGES, "值班手册")], "p4"),
    ("What is the hotel limit per night for Tier 4 cities?", [doc(HOTEL, "Travel policy")],
     "tier 4"),
    ("杭州办公室彩色打印每月限多少页？", [doc(SHANGHAI_PRINT, "打印机")], "杭州"),
])
def test_a_question_whose_answer_the_documents_do_not_hold_is_refused(
        question: str, passages: list[Passage], missing: str) -> None:
    draft = ask(question, passages)
    assert draft["refused"], draft["text"]
    assert missing.casefold() in draft["text"].casefold()


def test_the_anchor_held_only_by_another_passage_is_named_as_what_the_answer_is_not_about(
) -> None:
    pool = [doc(WIFI, "Office Wi-Fi"),
            doc("The Berlin office opened in 2024 with forty desks.", "Berlin office", n=2)]
    draft = ask("What is the guest Wi-Fi password at the Berlin office?", pool)
    assert draft["refused"]
    assert '"berlin"' in draft["text"]


@pytest.mark.parametrize(("question", "passages", "answer"), [
    ("When does the Harbor office open on weekends?",
     [doc(HARBOR + " On Saturdays it opens at 09:30 for parcel deliveries.")], "09:30"),
    ("How much does the monthly parking pass cost?",
     [doc(PARKING + " A monthly parking pass costs CNY 300.")], "CNY 300"),
    ("How many days can staff work from abroad?",
     [doc(ABROAD + " Staff may work from abroad for up to 10 working days a year.")], "10"),
    ("Who reviews a fully remote arrangement?",
     [doc("Fully remote arrangements are reviewed by the department head every six "
          "months.")], "department head"),
    ("年会在哪天举办？", [doc("年会于 12 月 18 日在杭州园区举办。", "年会通知")], "12 月 18 日"),
    ("停车月卡多少钱？", [doc("停车月卡每月 300 元，在前台办理。", "停车")], "300 元"),
    ("婚假有几天？", [doc("婚假 13 天，需在领证后一年内休完。", "请假制度")], "13 天"),
    ("报销单由谁审批？", [doc("报销单由直属上级审批，超过 5000 元还需财务总监审批。", "报销流程")],
     "直属上级"),
    ("What is the guest Wi-Fi password at the Shanghai office?", [doc(WIFI)], "voucher"),
    ("P2 级别的告警多久内要响应？", [doc(PAGES, "值班手册")], "30 分钟"),
    ("What is the hotel limit per night for Tier 2 cities?", [doc(HOTEL, "Travel policy")],
     "CNY 600"),
    ("上海办公室彩色打印每月限多少页？", [doc(SHANGHAI_PRINT, "打印机")], "150 页"),
    # The anchor stands in the heading, the value in the sentence under it.
    ("What is the guest Wi-Fi password at the Hangzhou office?",
     [doc("The guest Wi-Fi password is printed on the visitor voucher.", "Office Wi-Fi",
          headings=["Hangzhou office"])], "voucher"),
    # A value written in words, and a time given as a condition.
    ("How many weeks of notice do I give?",
     [doc("Give three weeks of notice before your last day.", "Leaving")], "three weeks"),
    ("When do I need a doctor's note for sick leave?",
     [doc("A doctor's note is needed if sick leave lasts more than two days.", "Leave")],
     "more than two days"),
])
def test_a_look_alike_whose_answer_the_documents_hold_is_answered(
        question: str, passages: list[Passage], answer: str) -> None:
    draft = ask(question, passages)
    assert not draft["refused"], draft["text"]
    assert answer in draft["text"]


def test_the_sentence_that_carries_the_value_opens_the_answer() -> None:
    # The first sentence shares more words; the second holds the time asked for.
    text = ("The Harbor office is open on weekends for parcel deliveries. "
            "Deliveries are accepted from 08:00 on Saturdays.")
    draft = ask("When is the Harbor office open on weekends?", [doc(text)])
    assert not draft["refused"]
    assert draft["sentences"][0]["text"].startswith("Deliveries are accepted from 08:00")


def test_the_kind_asked_is_read_from_how_the_question_is_asked() -> None:
    assert asked_kind("When is the next audit?") == "time"
    assert asked_kind("What happens when the disk fills up?") is None
    assert asked_kind("Who signs off a refund?") == "person"
    assert asked_kind("Can employees who finished probation work remotely?") is None
    assert asked_kind("试用期多久？") == "duration"
    assert asked_kind("什么时候发工资？") == "time"
    assert asked_kind("一次最多借几台投影仪？") == "number"
    assert asked_kind("How do I reset my token?") is None


def test_a_value_the_question_already_says_is_not_an_answer() -> None:
    # "天" alone, or the question's own number, is the topic, not the value.
    assert not carries("duration", "放假天数以通知为准。", "国庆放几天？")
    assert carries("duration", "国庆放 7 天。", "国庆放几天？")
    assert not carries("duration", "A one-year contract applies.", "How many days is it?")
    # An end point answers how long.
    assert carries("duration", "The freeze lasts until the audit closes.", "How long is it?")
    assert not carries("person", "Claims are processed in five days.", "Who approves claims?")
    assert carries("person", "王小明负责审批。", "报销谁来审批？")


def test_anchors_are_names_and_codes_by_their_form() -> None:
    assert anchors("Is the Lisbon office open on Monday?") == ["lisbon"]
    assert anchors("What is the Q3 target?") == ["q3"]
    assert anchors("How do I reset my password?") == []
    assert anchors("成都分公司的报销标准是多少？") == ["成都"]
    assert holds("Tier-2 cities", "tier 2")
    assert not holds("Tier 12 cities", "tier 2")
    assert holds("The Lisbon office", "lisbon")
    assert not holds("Lisburn", "lisbon")
    # A slip of the asker still names it.
    assert holds("The Lisbon office", "lisbom")
    assert holds("Hangzhou campus", "杭州", {"杭州": ["Hangzhou"]})


def test_a_refusal_for_a_missing_value_cites_only_the_sentence_it_shows() -> None:
    pool = [doc(HARBOR), doc("Annual leave is fifteen days a year.", "Leave", n=2)]
    draft = ask("When does the Harbor office open on weekends?", pool)
    assert draft["refused"]
    quoted = [s for s in draft["sentences"] if not s.get("note")]
    assert quoted == [{"text": "The Harbor office is open on weekends for parcel deliveries "
                               "only.", "cites": [1]}]


def test_only_a_name_the_documents_write_as_a_name_is_looked_for_by_sentence() -> None:
    # A word the documents write in lower case ("national holidays") or only through a
    # translation (元宵节) is not a name they use; a capitalised one or a code is.
    assert named_in("The Lantern Festival fair opens at 18:00.", "lantern")
    assert not named_in("Offices close on national holidays.", "national")
    assert not named_in("元宵节当天下午 3 点提前下班。", "lantern")
    assert named_in("P2 告警 30 分钟内响应。", "p2")


def test_a_sentence_must_name_a_code_or_a_name_before_a_category_noun_itself() -> None:
    from agent.offline.anchors import subject_anchors

    assert subject_anchors("What is the Wi-Fi password at the Berlin office?") == ["berlin"]
    assert subject_anchors("Which alerts are P2?") == ["p2"]
    # A name that is the whole passage's topic need not be repeated by its sentences.
    assert subject_anchors("What did the Celts trade?") == []
