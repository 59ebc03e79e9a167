"""Answers assembled from real document shapes (no I/O): whole step lists under the heading
that matches, FAQ answers in every common markup, every item of an introduced list, and a
question in two parts answered from both documents.

The documents are written for these tests and go through the real chunker, so a list that
spans a chunk boundary reaches the answer step as it would from the store."""

from __future__ import annotations

import re

from agent.state import Draft, Passage
from store.chunking import chunk_text
from store.formats import read_docx, read_html
from tests.unit.offline_ask import ask

VISITOR = """# 访客接待规范

本规范说明公司访客从预约到离开的接待要求，适用于北京和深圳两个办公室。

## 访客预约步骤

1. 在 OA 系统"访客预约"中填写访客姓名、单位和来访时间；
2. 选择接待人和会议室，会议室需另行在日历中预订；
3. 上传访客身份证号后四位，用于前台核验；
4. 提交后由部门助理审批，一般 2 小时内完成；
5. 审批通过后系统向访客发送含二维码的短信；
6. 访客到达后在前台扫码并领取临时访客证；
7. 接待人到前台接人，全程陪同；
8. 访客离开时在前台归还访客证；
9. 遗失访客证的，接待人需在 24 小时内向行政部说明情况；
10. 涉密区域一律不对访客开放。

## 常见误区

- 不要替访客刷自己的门禁卡；
- 不要把访客独自留在会议室。
"""

ONBOARDING = """# 新员工入职指南

## 入职当天

入职当天请携带以下材料：

- 身份证原件及复印件
- 银行卡（用于发放工资）
- 最高学历证书
- 上家单位的离职证明
- 一寸白底证件照两张

材料不全的，请在一周内补交。

## 工位与设备

工位由行政部在入职前一天分配，笔记本电脑在入职当天上午领取。
"""

TRAVEL = """# Business Travel Guide

## Before you travel abroad

Before any trip abroad, check the following:

- your passport is valid for at least six months after the return date;
- the visa matches the purpose of the trip;
- the travel insurance covers the destination;
- your manager has approved the trip in the travel portal.

## Booking flights

Flights are booked through the travel portal only. Economy class applies to flights under
six hours.
"""

CANTEEN_FAQ = """# 食堂与班车常见问题

**问：**食堂几点开饭？
**答：**早餐 7:30–9:00，午餐 11:30–13:30，晚餐 17:30–19:00。

**问：**班车在哪里上车？
**答：**园区 B 座北门，每天 8:10 和 8:40 各一班。

**Q:** Can I pay with my phone in the canteen?
**A:** No, only the staff badge is accepted at the tills.

Q: Is there a night shuttle?
A: Yes, one bus leaves the north gate at 21:30 on weekdays.
"""


def passages(text: str, doc_id: str, title: str, *, first_rank: int = 0,
             max_tokens: int = 512) -> list[Passage]:
    """Every chunk of ``text`` as the store would return it, in reading order."""
    return [Passage(chunk_id=1000 * first_rank + c.position, doc_id=doc_id, title=title,
                    source=f"{doc_id}.md", doc_type="document",
                    heading_path=list(c.heading_path), text=c.text, score=1.0,
                    rank=first_rank + k, round=1, sub_id="q1")
            for k, c in enumerate(chunk_text(text, max_tokens=max_tokens,
                                                      overlap=max_tokens // 5))]


def numbers(draft: Draft) -> list[str]:
    """The step numbers the answer's lines start with, in order."""
    return [m.group(1) for line in draft["text"].splitlines()
            if (m := re.match(r"\s*(\d{1,2})[.、)]", line))]


def test_a_how_question_gets_every_step_of_a_ten_step_list_in_order() -> None:
    draft = ask("访客预约怎么操作？", passages(VISITOR, "visitor", "访客接待规范"))
    assert not draft["refused"]
    assert numbers(draft) == [str(n) for n in range(1, 11)]
    assert "不要替访客刷" not in draft["text"]


def test_steps_split_across_two_chunks_are_quoted_whole_and_once() -> None:
    pool = passages(VISITOR, "visitor", "访客接待规范", max_tokens=70)
    assert sum("访客预约步骤" in " ".join(p["heading_path"]) for p in pool) >= 2
    draft = ask("访客预约怎么操作？", pool)
    assert numbers(draft) == [str(n) for n in range(1, 11)]


def test_an_introduced_chinese_list_is_answered_with_every_item() -> None:
    draft = ask("入职当天要带哪些材料？", passages(ONBOARDING, "onboard", "新员工入职指南"))
    assert not draft["refused"]
    for item in ("身份证原件", "银行卡", "学历证书", "离职证明", "证件照"):
        assert item in draft["text"], item


def test_an_introduced_english_list_is_answered_with_every_item() -> None:
    draft = ask("What do I need to check before a trip abroad?",
                passages(TRAVEL, "travel", "Business Travel Guide"))
    assert not draft["refused"]
    for item in ("passport", "visa", "insurance", "approved"):
        assert item in draft["text"], item
    # The lead-in never dangles at the end: the items follow it.
    assert not draft["text"].rstrip().endswith(":")


def test_faq_with_bold_labels_answers_with_the_answer() -> None:
    pool = passages(CANTEEN_FAQ, "canteen", "食堂与班车常见问题")
    draft = ask("班车在哪里上车？", pool)
    assert not draft["refused"]
    assert "B 座北门" in draft["text"]
    assert "在哪里上车" not in draft["text"]
    draft = ask("Can I pay by phone in the canteen?", pool)
    assert "only the staff badge" in draft["text"]
    assert "Can I pay" not in draft["text"]


def test_faq_with_plain_q_and_a_lines_answers_with_the_answer() -> None:
    draft = ask("Is there a night shuttle bus?",
                passages(CANTEEN_FAQ, "canteen", "食堂与班车常见问题"))
    assert "21:30" in draft["text"]
    assert "Is there a night shuttle" not in draft["text"]


def test_an_html_ordered_list_is_numbered_and_quoted_in_order() -> None:
    page = ("<html><head><title>Printer setup</title></head><body><h1>Printer setup</h1>"
            "<p>The office printers are on the third floor.</p><h2>How to add a printer</h2>"
            "<ol><li>Open Settings and choose Printers.</li><li>Click Add and pick "
            "PRN-3F-01.</li><li>Enter your badge number when asked.</li>"
            "<li>Print a test page.</li></ol></body></html>")
    title, text = read_html(page)
    assert "2. Click Add" in text
    draft = ask("How do I add a printer?", passages(text, "printer", title or ""))
    assert numbers(draft) == ["1", "2", "3", "4"]


BEIJING = """# 北京办公室指南

北京办公室位于朝阳区望京 SOHO T3 座 18 层。

前台电话为 010-6543-2100，工作日 9:00–18:00 有人值守。
"""

SHENZHEN = """# 深圳办公室指南

深圳办公室位于南山区科兴科学园 A 栋 9 层。

前台电话为 0755-8866-1200，工作日 9:30–18:30 有人值守。
"""

WIFI = """# Office Wi-Fi

## Guest network

Visitors join LT-Guest; the guest network password is printed on the reception desk card
and changes every Monday.

## Staff network

Employees join LT-Staff with their directory account; the staff network has no shared
password.
"""


def test_a_question_about_two_items_respectively_answers_each_from_its_document() -> None:
    pool = [*passages(BEIJING, "bj", "北京办公室指南"),
            *passages(SHENZHEN, "sz", "深圳办公室指南", first_rank=2)]
    draft = ask("北京和深圳办公室的前台电话分别是多少？", pool)
    assert not draft["refused"]
    assert "010-6543-2100" in draft["text"]
    assert "0755-8866-1200" in draft["text"]
    # In the order asked.
    assert draft["text"].index("010-6543-2100") < draft["text"].index("0755-8866-1200")


def test_an_english_respectively_question_answers_both_sections() -> None:
    draft = ask("What are the Wi-Fi passwords for the guest network and the staff network, "
                "respectively?", passages(WIFI, "wifi", "Office Wi-Fi"))
    assert "reception desk card" in draft["text"]
    assert "no shared" in draft["text"]


EXPENSE_FAQ = """# 报销常见问题

1. 发票抬头写错了怎么办？
   需联系开票方作废重开，抬头必须与公司全称一致。
2. 报销多久到账？
   财务审核通过后 5 个工作日内打入工资卡。
"""

IT_FAQ = """# IT FAQ

Q1: How long is a password valid?
A1: Passwords expire every 90 days; you are reminded 7 days before.

Q2. Can I use my own laptop?
A2. Only with the MDM profile installed.
"""


def test_a_numbered_list_of_faq_questions_is_not_a_procedure() -> None:
    draft = ask("发票抬头写错了怎么办？", passages(EXPENSE_FAQ, "efaq", "报销常见问题"))
    assert draft["sentences"][0]["text"].startswith("需联系开票方作废重开")
    assert "？" not in draft["text"]


def test_numbered_q_and_a_labels_are_read_as_faq_pairs() -> None:
    pool = passages(IT_FAQ, "itfaq", "IT FAQ")
    draft = ask("Can I use my own laptop for work?", pool)
    assert draft["sentences"][0]["text"] == "Only with the MDM profile installed."
    draft = ask("How long is a password valid?", pool)
    assert draft["sentences"][0]["text"].startswith("Passwords expire every 90 days")
    assert "A1" not in draft["text"]


PRINTER_ZH = """# 打印机使用说明

三楼打印机支持黑白和彩色打印，彩色打印需部门负责人开通权限。

## 连接打印机

第一步：打开"设置 > 打印机"，点击"添加"；
第二步：选择 PRN-3F-01，驱动会自动安装；
第三步：首次打印时在打印机上刷工卡确认。

## 扫描文件

1.将文件正面朝下放在玻璃板上；
2.在屏幕上选择"扫描到邮箱"；
3.刷工卡后文件发送到你的公司邮箱。
"""


def test_steps_written_as_di_n_bu_or_numbers_without_a_space_are_a_procedure() -> None:
    pool = passages(PRINTER_ZH, "printer-zh", "打印机使用说明")
    draft = ask("怎么连接打印机？", pool)
    assert [line[:3] for line in draft["text"].splitlines()] == ["第一步", "第二步", "第三步"]
    draft = ask("扫描文件怎么操作？", pool)
    assert numbers(draft) == ["1", "2", "3"]
    assert "扫描到邮箱" in draft["text"]


def test_a_word_document_numbered_list_keeps_its_numbers_and_answers_in_order() -> None:
    import io

    import docx

    document = docx.Document()
    document.add_heading("Laptop setup", 1)
    document.add_paragraph("New laptops are handed out at the service desk.")
    document.add_heading("First start", 2)
    for step in ("Open the lid of the new laptop and press the power key.",
                 "Join the LT-Staff network.",
                 "Sign in with your directory account.", "Wait for the updates to finish."):
        document.add_paragraph(step, style="List Number")
    document.add_paragraph("Keep the box for returns:")
    document.add_paragraph("The charger goes back with it.", style="List Bullet")
    data = io.BytesIO()
    document.save(data)
    title, text = read_docx(data.getvalue())
    assert "4. Wait for the updates" in text
    assert "- The charger goes back" in text
    draft = ask("How do I start a new laptop?",
                passages(text, "laptop", title or ""))
    assert numbers(draft) == ["1", "2", "3", "4"]


PARKING_FAQ = """# Parking FAQ

## Can visitors park on site?

Yes. Visitors get a free two-hour slot; book it at the front desk a day ahead.

## How much is monthly parking for employees?

Monthly parking costs CNY 300, deducted from salary. Electric cars pay the same rate.

## 访客可以开车进园区吗？

可以。访客需提前一天在前台登记车牌，当天凭登记短信入场；园区内限速 20 公里。
"""


def test_an_answer_under_a_question_heading_is_quoted_whole_with_its_verdict_first() -> None:
    pool = passages(PARKING_FAQ, "parking", "Parking FAQ")
    draft = ask("Can visitors park here?", pool)
    assert draft["text"].startswith(
        "Yes. Visitors get a free two-hour slot; book it at the front desk a day ahead."), \
        draft["text"]
    draft = ask("访客能开车进园区吗？", pool)
    assert draft["text"].startswith("可以。访客需提前一天在前台登记车牌"), draft["text"]
