"""Questions typed as people chat (no I/O): Chinese questions quoting English names, errors
and messages, colloquial 咋/啥, chat spellings and short forms, and a month named in either
language."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast

from agent.nodes.understand import _alternatives
from agent.offline.asked import codes
from agent.text import content_terms, term_hits
from store.tokenize import language_of
from tests.unit.offline_ask import ask
from tests.unit.test_answerable import passage
from tests.unit.test_cross_language_answers import answer
from tests.unit.test_cross_language_answers import passage as titled


def test_a_chinese_question_quoting_english_is_chinese() -> None:
    # Most letters are Latin; the grammar (很, 咋办, 是, 什么) is Chinese.
    assert language_of("kafka consumer lag 一直很高咋办") == "zh"
    assert language_of("staging 的 feature flag 是啥") == "zh"
    # As many function words of each: the question ends in Chinese.
    assert language_of("报错 permission denied for the user 是什么原因") == "zh"


def test_an_english_question_quoting_chinese_is_english() -> None:
    # A third of the letters are Chinese; the grammar ("is") is English.
    assert language_of("Is 年终奖 taxed?") == "en"
    assert language_of("How many days of 陪产假 do fathers get?") == "en"
    assert language_of("年终奖怎么发？") == "zh"
    assert language_of("How is the bonus paid?") == "en"


def test_colloquial_question_words_read_as_written_ones() -> None:
    assert content_terms("打印机卡纸了咋办") == content_terms("打印机卡纸了怎么办")
    assert content_terms("这个报错码啥意思") == content_terms("这个报错码什么意思")


def test_a_colloquial_how_question_is_answered_with_the_steps() -> None:
    guide = ("服务器磁盘满了会导致写入失败。\n1. 删除七天前的日志。\n2. 清理临时目录。\n"
             "3. 仍然不够时申请扩容。")
    draft = ask("服务器磁盘满了咋处理", [titled(1, guide, "disk", "磁盘空间", [], rank=0)])
    assert "1. 删除七天前的日志" in draft["text"]
    assert "3. 仍然不够时申请扩容" in draft["text"]


def test_chat_spellings_and_short_forms_are_spelled_out() -> None:
    assert content_terms("lost my pwd w/the 2fa token, wat now") == [
        "lost", "password", "twofactor", "token", "now"]
    # A document that writes the short form holds the spelled-out word.
    assert term_hits(["twofactor"], "Enter the code from your 2FA app.") == {"twofactor"}
    # A short form is no product code that the documents must name.
    assert codes("reset pwd w/ 2fa on the MX-500") == ["MX-500"]


def test_a_chat_question_with_short_forms_is_answered() -> None:
    faq = passage(1, "If you lose the phone with your two-factor app, bring your ID card to "
                     "the front desk; they reset your password and second factor.",
                  "Account help")
    draft = ask("lost my phone w/ the 2fa app and forgot my pwd, wat do", [faq])
    assert not draft["refused"]
    assert "front desk" in draft["text"]


def test_adverbs_and_time_pointed_at_name_no_topic() -> None:
    assert content_terms("上次 backup 那次失败了一直没恢复") == ["backup", "失败", "恢复"]
    assert content_terms("当时其实可以先停机吗") == ["停机"]


def test_a_borrowed_name_finds_its_own_document() -> None:
    # The asker names the system as the English report does; the Chinese page only shares
    # the generic words (故障, 影响).
    zh = titled(1, "接口故障会影响下游系统，出现故障时先看监控大盘，影响范围以告警为准。",
                "api-guide", "接口故障处理", [], rank=0)
    en = titled(2, "The payroll export outage affected 312 employees.",
                "payroll-report", "Payroll export outage report", [], rank=1)
    draft = answer("payroll export 那次故障影响了多少人", [zh, en], {})
    assert "312" in draft["text"]


def test_a_borrowed_word_is_held_as_written_not_through_a_translation() -> None:
    # "root cause" translates to 原因, which any Chinese sentence giving a reason holds.
    zh = titled(1, "报销被退回的常见原因是发票抬头写错了。", "expense", "报销常见问题", [], rank=0)
    en = titled(2, "A certificate on the load balancer had expired.", "outage",
                "Outage review", ["Root cause"], rank=1)
    draft = answer("outage 的 root cause 是啥", [zh, en], {"root cause": ["原因"]})
    assert "certificate" in draft["text"]


def test_a_month_is_one_term_found_in_either_language() -> None:
    assert "3月" in content_terms("3月那次 townhall 在哪开")
    assert "3" not in content_terms("3月那次 townhall 在哪开")
    assert "3" in content_terms("townhall 开了 3 天")
    ctx = SimpleNamespace(glossary=dict, translations=lambda text, wide=False: {})
    found = _alternatives(cast(Any, ctx), "8月的发布冻结从哪天开始")
    assert "august" in found["8月"]


def test_a_month_is_not_the_number_of_days() -> None:
    rows = titled(1, "春节：放假 8 天。", "holidays", "假期安排", [], rank=0)
    report = titled(2, "The freeze ran for 10 days, from 3 August.", "freeze",
                    "August change freeze", [], rank=1)
    u_terms = content_terms("8月 freeze 持续了多久")
    draft = answer("8月 freeze 持续了多久",
                   [rows, report], {t: ["august", "aug"] for t in u_terms if t == "8月"})
    assert "10 days" in draft["text"]


_PRINTER = ("# 打印机故障处理\n\n## 错误代码\n\n| 代码 | 含义 | 处理 |\n|---|---|---|\n"
            "| E05 | 纸盒缺纸 | 补纸后按继续键 |\n| E12 | 卡纸 | 打开后盖取出卡纸 |\n\n"
            "## 一般步骤\n\n1. 重启打印机。\n2. 检查打印机是否连上办公网络。\n"
            "3. 仍然不行时在 #it-help 提单。\n")


def test_a_how_question_about_a_case_in_a_table_is_answered_by_its_row() -> None:
    draft = ask("打印机报 E05 错误咋处理", [titled(1, _PRINTER, "printer", "打印机故障处理",
                                           ["错误代码"], rank=0)])
    assert draft["text"].startswith("E05")
    assert "补纸后按继续键" in draft["text"]


def test_a_how_question_naming_no_case_of_the_table_gets_the_steps() -> None:
    draft = ask("打印机一直打印不了咋处理", [titled(1, _PRINTER, "printer", "打印机故障处理",
                                            ["一般步骤"], rank=0)])
    assert "1. 重启打印机" in draft["text"]
    assert "3. 仍然不行时" in draft["text"]
