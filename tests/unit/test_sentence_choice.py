"""Which sentence of the right document answers: the one holding the kind of value asked for
(a day of the month for "几号", a time of day for "几点" / "what time"), not the one
repeating the question's words; never the document's sentence about itself ("本规范适用
于…", "This guide explains…") unless the question asks what the document covers; and never
a plain-text heading ("Visitor parking"), though the sentences under it are about it. The
documents and questions are written for these tests."""

from __future__ import annotations

from agent.offline.asked import deadline_pattern
from agent.offline.kinds import asked_value
from agent.offline.layout import quotable_units
from agent.offline.ranking import name_terms
from agent.offline.scope import asks_scope, describes_document
from agent.state import Passage
from agent.text import split_sentences
from store.chunking import chunk_text
from tests.unit.offline_ask import ask

PAYROLL = """# 薪酬发放说明

本说明适用于公司全体正式员工的工资、奖金和补贴发放，工资卡信息变更也按本说明办理。

## 发放时间

工资卡每个月最多变更 1 次，需在 HR 系统提交，并附新卡开户行信息。
每月 15 日发放上月工资，遇周末或节假日提前到最近的工作日。
年终奖在次年 3 月随工资一起发放。
"""

SHUTTLE = """# Shuttle Bus Guide

This guide explains the free shuttle bus service for employees and visitors between the
metro station and the campus.

## Timetable

Visitors with a day pass ride the shuttle for free.
The first bus leaves the metro station at 7:40 and the last one leaves the campus at 20:10.
"""

CANTEEN = """# 食堂就餐须知

## 营业时间

食堂就餐需刷工卡，食堂早餐开始前 30 分钟停止预订。
早餐从早上 7 点供应，午餐和晚餐按园区通知执行。
"""


def _passages(text: str, title: str) -> list[Passage]:
    return [Passage(chunk_id=1, doc_id=title, title=title, source=f"{title}.md",
                    doc_type="policy", heading_path=[title], text=text, score=1.0, rank=0,
                    round=1, sub_id="q1")]


def test_a_day_of_the_month_answers_which_day() -> None:
    value = asked_value("工资每月几号到账？")
    assert value is not None
    assert value.search("每月 15 日发放上月工资")
    assert value.search("15号发工资")
    assert not value.search("工资卡每个月最多变更 1 次")


def test_a_time_of_day_answers_what_time_in_either_language() -> None:
    for question in ("食堂早餐几点开始？", "What time does breakfast start?"):
        value = asked_value(question)
        assert value is not None, question
        assert value.search("早餐从早上 7 点供应"), question
        assert value.search("breakfast opens at 7 am"), question
    assert not asked_value("食堂早餐几点开始？").search("食堂早餐开始前 30 分钟停止预订")  # type: ignore[union-attr]


def test_a_year_stated_as_the_time_of_an_event_answers_when() -> None:
    for question in ("这座大桥是什么时候建成的？", "When was the bridge opened?"):
        value = asked_value(question)
        assert value is not None, question
        assert value.search("大桥于1955－1957年间建成通车"), question
        assert value.search("1957年，大桥建成通车"), question
        assert value.search("The bridge was opened in 1957."), question
        # a year naming a period is not the time of the event
        assert not value.search("现将 2026 年大桥维修安排通知如下"), question


def test_a_date_written_day_first_answers_when() -> None:
    for question in ("年会改到什么时候了？", "When is the offsite now?"):
        value = asked_value(question)
        assert value is not None, question
        assert value.search("The offsite moves from 3 March to 17 April 2027."), question
        assert value.search("Doors open on 9 Sept. at noon."), question
        assert value.search("The fair is on 5 May."), question
        assert not value.search("Guests under 12 may attend with a parent."), question
        assert not value.search("Our 12 Marketing leads meet weekly."), question


def test_the_sentence_with_the_day_answers_a_which_day_question() -> None:
    draft = ask("工资每个月几号发？", _passages(PAYROLL, "薪酬发放说明"))
    assert draft["sentences"][0]["text"].startswith("每月 15 日发放上月工资"), draft["text"]


def test_the_sentence_with_the_time_answers_a_when_question() -> None:
    draft = ask("食堂早餐几点开始？", _passages(CANTEEN, "食堂就餐须知"))
    assert draft["sentences"][0]["text"].startswith("早餐从早上 7 点"), draft["text"]


def test_a_document_describing_itself_does_not_answer_a_detail() -> None:
    draft = ask("Is the shuttle bus free for visitors?", _passages(SHUTTLE, "Shuttle Bus Guide"))
    assert draft["sentences"][0]["text"].startswith("Visitors with a day pass"), draft["text"]


def test_a_document_describing_itself_answers_a_question_about_its_scope() -> None:
    draft = ask("薪酬发放说明适用于哪些员工？", _passages(PAYROLL, "薪酬发放说明"))
    assert draft["sentences"][0]["text"].startswith("本说明适用于"), draft["text"]


def test_self_description_is_read_at_the_start_of_a_sentence_only() -> None:
    assert describes_document("本制度适用于全体正式员工。")
    assert describes_document("This handbook explains how on-call works.")
    assert describes_document("Use this runbook when a disk fills up.")
    # Naming the document elsewhere in a sentence states a rule, not the scope.
    assert not describes_document("工资卡信息变更也按本说明办理。")
    assert not describes_document("The handbook was last reviewed in May.")
    assert asks_scope("Who does the travel policy apply to?")
    assert asks_scope("When should I use the disk runbook?")
    assert not asks_scope("What tool is used for database backups?")


# A plain-text notice: its sections are marked by short lines alone, not by "#".
PARKING = """Parking and Bicycles

Visitor parking

Visitors leave their cars on level B2 after registering the plate at reception. Spaces are
limited to twenty a day.

Bicycle storage

Bicycles go in the locked cage by the north entrance; badges open it from 7:00 to 22:00.
"""


def test_a_plain_text_heading_is_not_quoted_and_heads_its_section() -> None:
    units = quotable_units(PARKING, split_sentences)
    texts = [u.text for u in units]
    assert "Visitor parking" not in texts
    assert "Bicycle storage" not in texts
    under = {u.text: u.heading for u in units}
    assert under["Spaces are limited to twenty a day."] == "Visitor parking"
    assert under["badges open it from 7:00 to 22:00."] == "Bicycle storage"


def test_the_sentence_under_the_matching_plain_heading_answers() -> None:
    passages = [Passage(chunk_id=1, doc_id="notice", title="notice", source="notice.txt",
                        doc_type="document", heading_path=[], text=PARKING, score=1.0,
                        rank=0, round=1, sub_id="q1")]
    draft = ask("Where is visitor parking?", passages)
    assert draft["sentences"][0]["text"].startswith("Visitors leave their cars on level B2"), \
        draft["text"]


PURCHASING = """# 采购审批规定

## 审批权限

1. 采购申请在 OA 中提交；
2. 按金额审批：
   - 5 万元以下：部门负责人审批；
   - 5 万元至 50 万元：部门负责人 + 采购经理；
   - 50 万元以上：还需分管副总裁审批；
3. 审批通过后由采购部下单。
"""


def test_an_item_that_adds_to_the_one_before_comes_with_it() -> None:
    draft = ask("80 万元的采购要谁批？", _passages(PURCHASING, "采购审批规定"))
    texts = [s["text"] for s in draft["sentences"]]
    assert "50 万元以上：还需分管副总裁审批；" in texts, draft["text"]
    at = texts.index("50 万元以上：还需分管副总裁审批；")
    assert texts[at - 1] == "5 万元至 50 万元：部门负责人 + 采购经理；", draft["text"]


BADGES = """# Access Badges

Every employee gets one access badge on the first day; the badge opens the office doors
and the car park barrier.

## Replacing a badge

Report a lost badge at the front desk so that it can be blocked at once.
A replacement badge for a lost badge is printed at the front desk while you wait.

## Fees

The first replacement badge each year is free.
Further replacements are charged at CNY 50 each, deducted from the next salary.
"""

CANTEEN_SURVEY = """# Canteen Survey 2026

## Results

Lunch attendance fell to 61% of staff in the spring, the lowest of any canteen survey.
Breakfast attendance stayed at 35%.

## Main reasons given

1. Queues: the lunch queue took over 20 minutes on most weekdays.
2. Menu: the same dishes came back every week.
"""


def _chunked(text: str, title: str) -> list[Passage]:
    """``text`` as the store returns it: one passage a section, with its heading path."""
    return [Passage(chunk_id=c.position, doc_id=title, title=title, source=f"{title}.md",
                    doc_type="document", heading_path=list(c.heading_path), text=c.text,
                    score=1.0, rank=k, round=1, sub_id="q1")
            for k, c in enumerate(chunk_text(text))]


def test_who_pays_is_answered_by_what_is_free_or_charged() -> None:
    for question in ("Do I have to pay for a lost badge?", "工牌丢了要自己付钱吗？"):
        value = asked_value(question)
        assert value is not None, question
        assert value.search("The first replacement badge each year is free."), question
        assert value.search("差旅住宿费用由公司承担"), question
        assert not value.search("Report a lost badge at the front desk."), question
    # "谁出任" asks who took an office, not who pays
    assert asked_value("他在谁出任校长时被任命为教务长？") is None
    draft = ask("Do I have to pay for a lost badge?", _chunked(BADGES, "Access Badges"))
    assert draft["sentences"][0]["text"].startswith("The first replacement badge"), draft["text"]


def test_a_why_question_is_answered_by_a_cause_not_by_the_fact_restated() -> None:
    why = asked_value("Why did the vendor miss the deadline?")
    assert why is not None
    assert why.search("The delivery slipped because the customs papers were late.")
    assert why.search("由于海关单据延误，交付推迟了一周。")
    assert not why.search("The vendor missed the deadline by one week.")
    # a cause said before its effect
    assert why.search("报关单据迟到了两周，因此交付推迟。")
    assert why.search("The papers arrived late, so the delivery slipped.")
    # "称为什么" asks for a name ("为" is the verb there), not for a cause
    for question in ("这座桥在清代被称为什么？", "这种鱼的牙齿成熟后会变化为什么形状？"):
        value = asked_value(question)
        assert value is None or not value.search("因为河水上涨，桥被冲毁。"), question
    # the items under a heading that names reasons are causes, though none says "because"
    draft = ask("Why is lunch attendance the lowest?", _chunked(CANTEEN_SURVEY,
                                                                 "Canteen Survey 2026"))
    assert draft["sentences"][0]["text"].startswith("Queues"), draft["text"]


def test_a_process_time_asks_how_long_not_when() -> None:
    for question in ("Ticket response time?", "What is the approval time for a visa letter?",
                     "签证函的审批时效是多久？"):
        value = asked_value(question)
        assert value is not None, question
        assert value.search("Tickets are answered within 4 hours."), question
        assert value.search("审批一般需要 3 个工作日"), question
    assert asked_value("What time does the canteen open?").search("Breakfast is at 7:30.")  # type: ignore[union-attr]
    assert asked_value("他现时效力哪支球队？") is None  # "时效" inside "现时效力"


CYCLING = ("# Cycling to Work Scheme\n\n## Subsidy\n\nLast reviewed: 2026-03-02.\n"
           "The cycling subsidy of CNY 800 pays for a bike, a lock or a helmet; apply for it on "
           "the benefits portal within six months of joining.\n"
           "Keep the shop's receipt: the portal asks for a photo of it.\n")

HOUSING_FUND = """# 住房公积金提取指引

## 办理时限

本指引自 2026 年 1 月 1 日起执行，由人力资源部负责解释。
离职员工提取公积金，须在离职后 30 天内向人力资源部提交提取申请。
提取申请需附身份证复印件和离职证明。
"""


def test_a_deadline_question_wants_a_period_or_a_date_it_runs_to() -> None:
    for question in ("Until when can I apply for the cycling subsidy?",
                     "By when do I have to apply?", "公积金提取最晚什么时候办？",
                     "提取申请的截止时间是哪天？", "要在多久之内提交？"):
        value = deadline_pattern(question)
        assert value is not None, question
        assert value.search("apply for it within six months of joining"), question
        assert value.search("须在离职后 30 天内提交"), question
        assert value.search("当年未休完可顺延至次年 3 月 31 日"), question
        assert value.search("submit it before 15 June"), question
        # a date that is no limit, a duration that is no limit
        assert not value.search("Last reviewed: 2026-03-02."), question
        assert not value.search("The voucher is valid for 24 hours."), question
    # a term's length is a duration, not a limit
    for question in ("How much is the cycling subsidy?", "公积金什么时候到账？",
                     "When was it built?", "劳动合同期限是几年？", "试用期多久？"):
        assert deadline_pattern(question) is None, question


def test_the_sentence_with_the_limit_answers_until_when() -> None:
    draft = ask("Until when can I apply for the cycling subsidy?",
                _passages(CYCLING, "Cycling to Work Scheme"))
    assert "within six months of joining" in draft["sentences"][0]["text"], draft["text"]
    draft = ask("离职后公积金最晚什么时候提取？", _passages(HOUSING_FUND, "住房公积金提取指引"))
    assert draft["sentences"][0]["text"].startswith("离职员工提取公积金"), draft["text"]


def test_a_documents_own_date_says_which_year_its_sentences_are_about() -> None:
    # Two reports of the same yearly race, neither naming its year in the text: their dates
    # say which one the question's year is about.
    def report(n: int, text: str, date: str) -> Passage:
        return Passage(chunk_id=n, doc_id=f"regatta-{date[:4]}", title="Harbour regatta",
                       source="news.jsonl", doc_type="news", heading_path=[], text=text,
                       score=1.0, rank=n, round=1, sub_id="q1", date=date)
    pool = [report(0, "Mira Holt won the harbour regatta on Sunday.", "2026-06-02"),
            report(1, "Jon Pike won the harbour regatta on Sunday.", "2025-06-01")]
    draft = ask("Who won the 2025 harbour regatta?", pool)
    assert draft["sentences"][0]["text"].startswith("Jon Pike"), draft["text"]
    draft = ask("Who won the 2026 harbour regatta?", pool)
    assert draft["sentences"][0]["text"].startswith("Mira Holt"), draft["text"]


REPORT = """澄川智造股份有限公司2025年年度报告（摘要）

公司名称：澄川智造股份有限公司；证券简称：澄川智造；证券代码：688321。
总经理：罗文斌；董事会秘书：沈一帆。
澄川智造主要从事工业机器人减速器的研发和销售，产品覆盖汽车和电子行业。
"""


# Two more reports, so that a role ("总经理") is a common word of the pool and the company's
# name a rare one.
OTHER_REPORTS = [
    ("岳峰电气股份有限公司2025年年度报告（摘要）",
     "公司名称：岳峰电气股份有限公司；证券简称：岳峰电气。\n总经理：韩立新；董事会秘书：许晴。\n"
     "岳峰电气主要从事配电设备的生产。"),
    ("临溪药业股份有限公司2025年年度报告（摘要）",
     "公司名称：临溪药业股份有限公司；证券简称：临溪药业。\n总经理：彭程；董事会秘书：钟岚。\n"
     "临溪药业主要从事仿制药的研发。"),
]


def test_a_name_the_title_gives_is_held_by_every_sentence_of_the_document() -> None:
    # The report is about the company: the line naming its general manager answers, not the
    # lines that only repeat the company's name.
    reports = [("澄川智造股份有限公司2025年年度报告（摘要）", REPORT), *OTHER_REPORTS]
    passages = [Passage(chunk_id=i + 1, doc_id=f"report-{i}", title=title, source=f"r{i}.md",
                        doc_type="report", heading_path=[title], text=text, score=1.0,
                        rank=i, round=1, sub_id="q1")
                for i, (title, text) in enumerate(reports)]
    assert ask("澄川智造的总经理是谁？", passages)["text"].startswith("总经理：罗文斌")


def test_the_names_a_question_gives() -> None:
    assert name_terms("Who is the chairman of Lumora Robotics?",
                      ["chairman", "lumora", "robotics"], "en") == ["lumora", "robotics"]
    assert name_terms("澄川智造的电池容量是多少？", ["澄川", "智造", "电池", "容量"],
                      "zh") == ["澄川", "智造"]
    assert name_terms("VPN 证书多久过期？", ["vpn", "证书", "过期"], "zh") == ["vpn"]
    assert name_terms("how much paternity leave do we get", ["paternity", "leave"], "en") == []
