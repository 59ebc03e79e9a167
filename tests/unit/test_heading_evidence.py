"""A passage's headings (its title and heading path) hold the words they say: an FAQ whose
question is the heading, or a policy section whose body never repeats its heading's noun,
answers the question its heading asks; a question only a heading word matches, asking for
a value the section lacks, is still refused."""

from __future__ import annotations

from agent.offline.answerable import missing_constraint
from agent.state import Passage
from tests.unit.offline_ask import ask


def section(chunk_id: int, headings: list[str], text: str, title: str = "") -> Passage:
    return Passage(chunk_id=chunk_id, doc_id=f"d{chunk_id}", title=title, source="s.md",
                   doc_type="document", heading_path=headings, text=text, score=1.0,
                   rank=0, round=1, sub_id="q1")


FAQ = [
    section(1, ["Remote access FAQ", "Why is the tunnel sluggish on hotel wifi?"],
            "Hotels throttle UDP traffic. Switch the client to TCP on port 443.",
            title="Remote access FAQ"),
    section(2, ["Remote access FAQ", "Can I print from home?"],
            "No. Printing needs a device on the office network.",
            title="Remote access FAQ"),
]
HANDBOOK = [
    section(3, ["员工手册", "病假"], "每年可享受十二天带薪休息，须提交医院开具的证明。",
            title="员工手册"),
    section(4, ["员工手册", "婚假"], "员工结婚可休三天，须在登记后一年内休完。", title="员工手册"),
]


def test_an_faq_answer_under_its_question_heading_is_given() -> None:
    draft = ask("Why is the tunnel sluggish on hotel wifi?", FAQ)
    assert not draft["refused"]
    assert "TCP on port 443" in draft["text"]


def test_a_policy_section_whose_body_omits_its_heading_noun_is_given() -> None:
    draft = ask("病假有多少天？", HANDBOOK)
    assert not draft["refused"]
    assert "十二天" in draft["text"]


def test_a_heading_word_alone_does_not_answer_a_value_the_section_lacks() -> None:
    assert ask("病假期间的工资扣减比例是多少？", HANDBOOK)["refused"]
    assert ask("What monthly fee does the hotel wifi tunnel cost per laptop seat?",
               FAQ)["refused"]


def test_a_name_in_the_heading_is_not_a_missing_constraint() -> None:
    berlin = [section(5, ["Offices", "Berlin"], "The office opens at 8 and closes at 18.")]
    assert missing_constraint("When does the Berlin office open?", berlin) is None
    # A name neither the headings nor the text hold still narrows the question away.
    assert missing_constraint("When does the Madrid office open?", berlin) == "madrid"
