"""Two named things compared: each one's value from its own document, then the verdict."""

from __future__ import annotations

from agent.offline.versus import compared_pair
from agent.state import Passage
from tests.unit.offline_ask import ask


def _doc(doc_id: str, title: str, text: str) -> Passage:
    return Passage(chunk_id=hash(doc_id) % 1000, doc_id=doc_id, title=title, source=doc_id,
                   doc_type="document", heading_path=[], text=text, score=1.0, rank=0, round=1,
                   sub_id="q1")


def _judgment(doc_id: str, parties: str, filed: str, signed: str) -> Passage:
    return _doc(doc_id, f"{parties}合同纠纷一审民事判决书",
                f"民事判决书\n原告与被告{parties}合同纠纷一案，本院于{filed}立案后，依法适用"
                f"简易程序，公开开庭进行了审理。\n判决如下：驳回原告的其他诉讼请求。\n"
                f"审判员　周明\n{signed}\n书记员　林小雨")


def _report(doc_id: str, name: str, body: str) -> Passage:
    return _doc(doc_id, f"{name}股份有限公司2025年年度报告（摘要）",
                f"公司名称：{name}股份有限公司。\n{body}")


JUDGMENTS = [
    # The later judgment was filed earlier: the filing dates would pick the wrong case.
    _judgment("j-1", "杭州明远纺织有限公司与嘉兴丰泰印染有限公司买卖", "2025年1月6日",
              "二〇二五年九月二十二日"),
    _judgment("j-2", "宁波东港仓储有限公司与宁波海润贸易有限公司仓储", "2025年3月2日",
              "二〇二五年五月八日"),
]

REPORTS = [
    _report("r-1", "云帆乐器", "报告期内，公司实现营业收入12.40亿元，同比增长8.1%。\n"
            "收购事项：2025年9月3日，公司完成对苏州和鸣声学有限公司70%股权的收购，交易对价为"
            "3.1亿元。"),
    _report("r-2", "松石茶业", "报告期内，公司实现营业收入27.05亿元，同比增长3.5%。\n"
            "收购事项：2025年4月15日，公司完成对福建岩韵茶庄有限公司的收购，交易对价为1.6亿元。"),
    _report("r-3", "北辰家居", "报告期内，公司营业收入保持稳定。"),
]


def test_the_earlier_judgment_is_read_from_the_date_each_is_signed_with() -> None:
    draft = ask("明远纺织案和东港仓储案，哪个案件判决得更早？", JUDGMENTS)
    assert not draft["refused"]
    lead = draft["sentences"][0]["text"]
    assert lead.startswith("东港仓储案更早"), draft["text"]
    assert "二〇二五年五月八日" in lead
    assert "二〇二五年九月二十二日" in lead
    assert sorted(draft["sentences"][0]["cites"]) == [1, 2]


def test_the_higher_amount_is_said_with_both_values_each_from_its_own_report() -> None:
    draft = ask("2025年松石茶业和云帆乐器哪家的营业收入更高？", REPORTS)
    lead = draft["sentences"][0]
    assert lead["text"].startswith("松石茶业更高"), draft["text"]
    assert "27.05亿元" in lead["text"]
    assert "12.40亿元" in lead["text"]
    assert [s["cites"] for s in draft["sentences"][1:3]] == [[2], [1]]


def test_two_events_are_split_where_the_names_are_parallel() -> None:
    # "和" also stands inside a name (苏州和鸣声学); the split that leaves two names of about
    # one length is the one between them.
    q = "云帆乐器收购苏州和鸣声学和松石茶业收购福建岩韵茶庄，哪笔交易的对价更高？"
    assert compared_pair(q) == ("云帆乐器收购苏州和鸣声学", "松石茶业收购福建岩韵茶庄")
    draft = ask(q, REPORTS)
    assert draft["sentences"][0]["text"].startswith("云帆乐器收购苏州和鸣声学更高：3.1亿元")


def test_which_completed_first_compares_the_dates_of_the_asked_event() -> None:
    draft = ask("云帆乐器和松石茶业都在2025年完成了收购，哪家先完成？", REPORTS)
    assert draft["sentences"][0]["text"].startswith("松石茶业更早：2025年4月15日"), draft["text"]


def test_a_missing_value_is_named_and_nothing_is_decided() -> None:
    draft = ask("北辰家居和云帆乐器哪家的营业收入更高？", REPORTS)
    lead = draft["sentences"][0]["text"]
    assert lead.startswith("无法比较"), draft["text"]
    assert "12.40亿元" in lead
    assert "北辰家居" in lead
    assert "更高" not in lead


def test_an_english_question_compares_in_english() -> None:
    passages = [
        _doc("e-1", "Alder Mills plc — Annual Report 2025",
             "Alder Mills plc. Revenue for 2025 was £84.2 million, up 6% on 2024."),
        _doc("e-2", "Brightwater Foods plc — Annual Report 2025",
             "Brightwater Foods plc. Revenue for the year was £112.9 million."),
    ]
    draft = ask("Which company reported higher revenue, Alder Mills or Brightwater Foods?",
                passages)
    lead = draft["sentences"][0]["text"]
    assert lead.startswith("Brightwater Foods is higher: £112.9 million"), draft["text"]
    assert "£84.2 million" in lead


def test_amounts_in_two_currencies_are_not_ranked() -> None:
    passages = [
        _doc("e-1", "Alder Mills plc — Annual Report 2025", "Revenue was £84.2 million."),
        _doc("e-2", "Cobalt Ridge Inc. — Annual Report 2025", "Revenue was US$90.5 million."),
    ]
    draft = ask("Which company reported higher revenue, Alder Mills or Cobalt Ridge?", passages)
    lead = draft["sentences"][0]["text"]
    assert "different units" in lead, draft["text"]
    assert "is higher" not in lead


def test_the_day_a_judgment_was_given_is_the_day_it_is_signed_with() -> None:
    draft = ask("宁波东港仓储有限公司与宁波海润贸易有限公司仓储合同纠纷案是哪天判决的？",
                JUDGMENTS[::-1])
    assert draft["sentences"][0]["text"] == "二〇二五年五月八日", draft["text"]


def test_the_role_asked_of_a_described_company_is_answered_by_its_holder() -> None:
    # The description ("that bought Fernhill Optics") is the first hop; the role's sentence
    # in the same report is the answer, though it shares fewer of the question's words.
    passages = [
        _doc("e-3", "Kestrel Dynamics Inc. — 2025 Annual Report",
             "Kestrel Dynamics Inc. builds drones for farms. Chair of the Board: Ruth Adeyemi. "
             "Chief Executive Officer: Marcus Lindqvist.\nIn May 2025 the company completed "
             "the purchase of Fernhill Optics Ltd., which makes thermal cameras, for "
             "US$40 million; Fernhill Optics joins the imaging unit."),
    ]
    draft = ask("Who is the chief executive of the company that bought Fernhill Optics?",
                passages)
    assert draft["sentences"][0]["text"] == "Chief Executive Officer: Marcus Lindqvist.", (
        draft["text"])


def test_which_company_is_answered_with_the_reports_company_name() -> None:
    # The report calls itself "公司" beside the event; its name is in the title.
    passages = [
        _doc("r-4", "松石茶业股份有限公司2025年年度报告（摘要）",
             "收购事项：2025年4月15日，公司完成对福建岩韵茶庄有限公司的收购，交易对价为1.6亿元。"),
        _doc("r-5", "云帆乐器股份有限公司2025年年度报告（摘要）",
             "收购事项：2025年9月3日，公司完成对苏州和鸣声学有限公司的收购。"),
    ]
    draft = ask("哪家公司在2025年4月完成了对福建岩韵茶庄的收购？", passages)
    assert draft["sentences"][0]["text"] == "松石茶业股份有限公司", draft["text"]
    assert draft["sentences"][0]["cites"] == [1]
    # Asked as the object, "哪家公司" is another company than the report's own.
    draft = ask("松石茶业2025年4月收购了哪家公司？", passages)
    assert draft["sentences"][0]["text"] != "松石茶业股份有限公司", draft["text"]


def test_how_far_apart_two_amounts_are_is_computed_in_the_first_ones_unit() -> None:
    draft = ask("云帆乐器和松石茶业的营业收入相差多少？", REPORTS)
    lead = draft["sentences"][0]["text"]
    assert lead == "云帆乐器为12.40亿元，松石茶业为27.05亿元，相差14.65亿元。", draft["text"]


def test_a_stay_compares_in_days_and_the_verdict_uses_the_questions_word() -> None:
    passages = [
        _doc("m-1", "滨江医院出院记录（顾明）",
             "姓名：顾明　年龄：61岁\n住院天数：8天\n出院诊断：肺炎。"),
        _doc("m-2", "滨江医院出院记录（沈悦）",
             "姓名：沈悦　年龄：34岁\n住院天数：3天\n出院诊断：胆囊炎。"),
    ]
    draft = ask("顾明和沈悦谁的住院天数更长？", passages)
    assert draft["sentences"][0]["text"] == "顾明更长：8天；沈悦为3天。", draft["text"]


def test_judgment_dates_may_be_labelled_lines_and_names_may_hold_v() -> None:
    passages = [
        _doc("e-4", "Harlow Mills Ltd v Quarry Lane Ltd — Judgment",
             "Before: the Honourable Justice Ann Tabor\nDate of judgment: 3 April 2025\n"
             "1. The claim was issued on 9 January 2025 for unpaid invoices."),
        _doc("e-5", "Tamsin Foods Ltd v Orr Haulage Ltd — Judgment",
             "Before: the Honourable Justice Ravi Mehta\nDate of judgment: 20 February 2025\n"
             "1. The claim was issued on 2 December 2024 over a lost consignment."),
    ]
    q = "Which case was decided earlier, Harlow Mills v Quarry Lane or Tamsin Foods v Orr Haulage?"
    assert compared_pair(q) == ("Harlow Mills v Quarry Lane", "Tamsin Foods v Orr Haulage")
    draft = ask(q, passages)
    assert draft["sentences"][0]["text"] == (
        "Tamsin Foods v Orr Haulage is earlier: 20 February 2025, against 3 April 2025 for "
        "Harlow Mills v Quarry Lane."), draft["text"]
