"""Follow-ups in threads on the whole samples/kb, through the real graph: threads written for
this test (none from an evaluation set). An ellipsis naming a new value for the earlier
question's slot is answered from the new value's row; a question asked as it stands inside
the thread's document is read with the thread's topic; a pronoun takes the thread's topic; a
new topic is answered as asked."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.api import Agent, Question
from tests.databases import samples_agent

pytestmark = [pytest.mark.db, pytest.mark.model]

KB = "samples"


@pytest.fixture(scope="module")
def agent(pg_admin_url: str, _template: str, embedder) -> Iterator[Agent]:  # type: ignore[no-untyped-def]
    """The agent over all of samples/kb, one database for the module (embedding is slow)."""
    with samples_agent(pg_admin_url, _template, embedder, KB, prefix="f") as a:
        yield a


def _thread(agent: Agent, name: str, questions: list[str]) -> list[tuple[str, str | None, str]]:
    """Each turn's answer, rewritten query and first cited document."""
    out = []
    for text in questions:
        r = agent.ask(Question(text=text, thread_id=f"followups:{name}", kb=KB))
        cited = Path(r.citations[0].doc_id).stem if r.citations else ""
        out.append((r.text, r.rewritten_query, cited))
    return out


def _first_line(answer: str) -> str:
    return answer.split("[1]", maxsplit=1)[0]


def test_a_new_leave_type_in_an_ellipsis_is_answered_from_its_own_row(agent: Agent) -> None:
    first, second, third = _thread(agent, "leave", ["婚假一共几天？", "那丧假呢？", "陪产假呢？"])
    assert "13" in _first_line(first[0])
    # The earlier question with the new leave type in its place, not both side by side.
    assert second[1] == "丧假一共几天?"
    assert second[2] == "leave-policy"
    assert _first_line(second[0]).startswith("丧假")
    assert "3 天" in _first_line(second[0])
    assert third[1] == "陪产假一共几天?"
    # jieba reads 陪产假 as 陪 + 产假, so the 产假 row ties with it and may come first; the
    # asked row is quoted all the same.
    assert "陪产假：天数 15 天" in third[0]


def test_a_question_inside_the_threads_table_is_about_the_threads_row(agent: Agent) -> None:
    first, second = _thread(agent, "holiday", ["2026 年劳动节放几天？", "调休哪天上班？"])
    assert "5天" in first[0]
    # Asked alone it names no holiday; after the May Day question it asks about May Day.
    assert second[1] is None
    assert "5月9日" in _first_line(second[0])


def test_a_pronoun_takes_the_thread_topic_and_a_new_topic_is_asked_as_it_is(
        agent: Agent) -> None:
    sick, paid, allowance = _thread(agent, "sick", [
        "病假要提供什么证明？", "它带薪吗？", "春节封网从什么时候开始？"])
    assert "医院证明" in sick[0]
    assert paid[1] is not None
    assert "病假" in paid[1]
    assert "全薪" in paid[0]
    assert allowance[1] is None
    assert allowance[2] == "holiday-schedule-2026"
    assert "2月12日" in allowance[0]


def test_an_opening_before_a_topic_of_its_own_adds_nothing_of_the_thread(agent: Agent) -> None:
    sick, hotel, over = _thread(agent, "opening", [
        "病假需要什么证明？", "那出差住宿标准是多少？", "如果超标了呢？"])
    assert sick[2] == "leave-policy"
    # "那" joins the question to the conversation; the question names its own topic.
    assert hotel[1] is None
    assert "病假" not in hotel[0]
    # "如果…呢？" with one word of its own asks "what if …?" of the hotel question.
    assert over[1] is not None
    assert "住宿" in over[1]
    assert "病假" not in over[1]


def test_a_word_the_segmenter_splits_still_names_the_new_topic(agent: Agent) -> None:
    _, carry_over = _thread(agent, "split-word", [
        "How do I connect to the office Wi-Fi?", "年假能顺延吗？"])
    # jieba reads 年 / 假能 / 顺延; the leave policy holds 年假 whole, so the question is a
    # topic of its own, not the Wi-Fi question's follow-up.
    assert carry_over[1] is None
    assert carry_over[2] == "leave-policy"
    assert "3 月 31 日" in _first_line(carry_over[0])


def test_by_the_way_starts_a_new_topic_even_one_the_documents_lack(agent: Agent) -> None:
    _, gym = _thread(agent, "by-the-way", ["数据库多久备份一次？", "对了，公司有健身房吗？"])
    # Nothing of the backup question is carried into it, nor answered from its runbook.
    assert gym[1] is None
    assert gym[2] != "database-backup"



def test_another_matter_opened_by_lingwai_takes_nothing_of_the_thread(agent: Agent) -> None:
    _, canteen = _thread(agent, "another-matter", [
        "数据库多久备份一次？", "另外，公司食堂晚饭几点开门？"])
    # "另外" before a question of its own opens another matter: asked as it stands, not
    # answered from the backup runbook.
    assert canteen[1] is None
    assert canteen[2] != "database-backup"


def test_btw_said_last_sets_the_question_aside(agent: Agent) -> None:
    _, gym = _thread(agent, "aside", [
        "How do I connect to the office Wi-Fi?", "is there a gym in the office btw"])
    assert gym[1] is None
    assert gym[2] != "office-wifi-and-printers"


def test_a_pronoun_after_a_fronted_topic_points_to_it(agent: Agent) -> None:
    _, phone = _thread(agent, "fronted", [
        "How do I connect to the office Wi-Fi?", "Speaking of the VPN, does it work on my phone?"])
    # "it" is the VPN the question names, not the Wi-Fi of the thread.
    assert phone[1] is None
    assert phone[2] == "vpn-setup-faq"
