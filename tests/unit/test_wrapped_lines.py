"""Hard-wrapped paragraphs: a line break inside a sentence does not cut it, in English and in
Chinese, while titles, list items, table rows and code keep their own lines; and the answer
quotes the whole sentence that holds the value asked for. The documents are written for
these tests."""

from __future__ import annotations

from agent.state import Passage
from agent.text import split_sentences
from agent.wrapped_lines import unwrap, wraps
from tests.unit.offline_ask import ask

# A travel note wrapped at 70 columns, as plain-text exports and e-mails are.
APARTMENTS = """Serviced apartments

Employees who travel for more than three days in a row may book a
serviced apartment instead of a hotel. The apartment rate must stay
below the hotel limit of the city tier, and the booking needs the
travel desk's confirmation.

Changes made less than 24 hours before check-in are charged to the
employee, unless the trip itself was moved by the business."""

# The same kind of note in Chinese, wrapped at 30 characters (a break can fall anywhere,
# even between a word and the number after it).
CANTEEN = """食堂与夜宵

员工食堂工作日供应早餐、午餐和晚餐，午餐时间为 11:30 至 13:30，晚餐
时间为 17:30 至 19:30。加班到晚上九点以后的员工可以在前台领取夜宵券，
每张夜宵券可在园区便利店抵扣 25 元，当天
有效。

- 夜宵券需刷工卡领取
- 节假日加班同样适用"""


def test_an_english_sentence_wrapped_over_three_lines_is_one_sentence() -> None:
    assert split_sentences(APARTMENTS) == [
        "Serviced apartments",
        "Employees who travel for more than three days in a row may book a serviced "
        "apartment instead of a hotel.",
        "The apartment rate must stay below the hotel limit of the city tier, and the "
        "booking needs the travel desk's confirmation.",
        "Changes made less than 24 hours before check-in are charged to the employee, "
        "unless the trip itself was moved by the business.",
    ]


def test_a_chinese_sentence_wrapped_mid_word_is_joined_without_a_space() -> None:
    sentences = split_sentences(CANTEEN)
    assert "员工食堂工作日供应早餐、午餐和晚餐，午餐时间为 11:30 至 13:30，晚餐时间为 17:30 至 " \
           "19:30。" in sentences
    # A short last line ("有效。") still belongs to its sentence: the line before it is cut.
    assert "加班到晚上九点以后的员工可以在前台领取夜宵券，每张夜宵券可在园区便利店抵扣 25 元，" \
           "当天有效。" in sentences


def test_titles_and_list_items_keep_their_own_lines() -> None:
    sentences = split_sentences(CANTEEN)
    assert "食堂与夜宵" in sentences
    assert "夜宵券需刷工卡领取" in sentences
    assert "节假日加班同样适用" in sentences


def test_a_short_line_without_punctuation_is_not_joined_to_the_next() -> None:
    # A label or a title ends by itself; a line as long as the wrap width was cut.
    assert not wraps("Opening hours", "Weekdays from 9 to 6.")
    assert not wraps("营业时间", "工作日九点到六点。")
    assert wraps("Claims that arrive after the end of the quarter are paid with", "May's.")


def test_structure_is_never_joined() -> None:
    text = ("| Site | Hours |\n|---|---|\n| Lab | 9-18 |\n"
            "```\nrestart-service --name billing\nwait for the health check\n```\n"
            "# Parking rules for visitors and contractors without a badge\n"
            "Visitors park on level B2.")
    assert unwrap(text) == text


def test_a_list_item_takes_its_wrapped_continuation() -> None:
    text = ("- Book flights and hotels through the travel portal whenever\n"
            "  possible; the portal applies the limits.\n- Trains: second class.")
    assert unwrap(text).splitlines() == [
        "- Book flights and hotels through the travel portal whenever possible; the "
        "portal applies the limits.",
        "- Trains: second class."]


def _passage(text: str, title: str) -> list[Passage]:
    return [Passage(chunk_id=1, doc_id=title, title=title, source=f"{title}.txt",
                    doc_type="document", heading_path=[], text=text, score=1.0, rank=0,
                    round=1, sub_id="q1")]


def test_the_answer_quotes_the_whole_wrapped_sentence_with_its_value() -> None:
    draft = ask("What happens if I change my booking less than 24 hours before check-in?",
                _passage(APARTMENTS, "Travel notes"))
    assert not draft["refused"], draft["text"]
    first = draft["sentences"][0]["text"]
    assert first.startswith("Changes made less than 24 hours"), draft["text"]
    assert "charged to the employee" in first, draft["text"]


def test_a_chinese_answer_quotes_the_wrapped_sentence_whole() -> None:
    draft = ask("夜宵券能抵扣多少钱？", _passage(CANTEEN, "食堂"))
    assert not draft["refused"], draft["text"]
    assert "每张夜宵券可在园区便利店抵扣 25 元，当天有效。" in draft["text"], draft["text"]
    assert draft["text"].startswith("加班到晚上九点以后"), draft["text"]
