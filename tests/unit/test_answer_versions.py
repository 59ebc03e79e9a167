"""Answer choice among near-duplicate documents: the current version over a superseded one,
the period asked, two current documents that disagree, and a refusal that shows what it
found (original documents, not from any evaluation set)."""

from __future__ import annotations

from agent.engine import OfflineEngine
from agent.nodes.finalize import cite_documents
from agent.offline.versions import period_fit, periods, superseded
from agent.state import Draft, Passage
from tests.unit.offline_ask import ask

E = OfflineEngine()


def doc(n: int, text: str, title: str, rank: int = 0) -> Passage:
    return Passage(chunk_id=n, doc_id=f"doc-{n}", title=title, source=f"doc-{n}.md",
                   doc_type="policy", heading_path=[], text=text, score=1.0, rank=rank,
                   round=1, sub_id="q1")


def quoted(draft: Draft) -> list[str]:
    return [s["text"] for s in draft["sentences"] if not s.get("note")]


OLD_BIKE = doc(1, "Staff may park bicycles in the basement racks for free. Each rack space "
                  "must be booked two days ahead.", "Bicycle Parking Rules 2024")
NEW_BIKE = doc(2, "This document replaces the Bicycle Parking Rules 2024. Each rack space "
                  "must be booked five days ahead.", "Bicycle Parking Rules 2025", rank=1)


def test_a_document_that_says_it_replaces_another_makes_that_one_superseded() -> None:
    assert superseded([OLD_BIKE, NEW_BIKE]) == {"doc-1"}
    # "replace" without naming a document of the pool replaces nothing.
    lamp = doc(3, "Replace the desk lamp bulb when it flickers.", "Desk Lamps")
    assert superseded([OLD_BIKE, lamp]) == set()
    # Said the other way round, and in Chinese.
    old = doc(4, "本办法已被《访客登记办法（2025版）》取代。访客须提前一天登记。",
              "访客登记办法（2023版）")
    new = doc(5, "访客须提前两天在前台系统登记。", "访客登记办法（2025版）")
    assert superseded([old, new]) == {"doc-4"}
    zh_new = doc(6, "自本办法施行之日起，原《访客登记办法（2023版）》同时废止。",
                 "访客登记办法（2025版）")
    assert superseded([old, zh_new]) == {"doc-4"}


def test_two_documents_that_each_claim_to_replace_the_other_decide_nothing() -> None:
    a = doc(1, "This replaces the Printer Guide B.", "Printer Guide A")
    b = doc(2, "This replaces the Printer Guide A.", "Printer Guide B")
    assert superseded([a, b]) == set()


def test_a_statement_about_another_edition_does_not_name_this_one() -> None:
    older = doc(1, "Rack spaces are free.", "Bicycle Parking Rules 2023")
    mid = doc(2, "This replaces the Bicycle Parking Rules 2023.", "Bicycle Parking Rules 2024")
    new = doc(3, "This replaces the Bicycle Parking Rules 2024.", "Bicycle Parking Rules 2025")
    assert superseded([older, mid, new]) == {"doc-1", "doc-2"}


def test_the_current_version_answers_even_when_the_old_one_ranks_first() -> None:
    draft = ask("How many days ahead must a bicycle rack space be booked?", [OLD_BIKE, NEW_BIKE])
    assert not draft["refused"]
    assert "five days" in quoted(draft)[0]
    assert all("two days" not in s for s in quoted(draft))


def test_periods_are_read_in_both_languages() -> None:
    assert periods("Q3 2026 report") == {"Q3", "2026"}
    assert periods("2025年第三季度") == {"2025", "Q3"}
    assert period_fit({"2025"}, "Sales rose 4%.", "Report 2025") == 1
    assert period_fit({"2025"}, "In 2024 sales rose 4%.", "Annual report") == -1
    assert period_fit({"2025"}, "Sales rose 4%.", "Annual report") == 0
    assert period_fit(set(), "In 2024 sales rose 4%.", "Annual report") == 0


def test_numbered_members_of_a_series_are_read_in_both_languages() -> None:
    assert periods("第十二届梧桐读书节在城南开幕") == {"edition 12"}
    assert periods("The twelfth Wutong Reading Festival opened") == {"edition 12"}
    assert periods("the 12th edition of the fair") == {"edition 12"}
    assert periods("东湖有轨电车2号线三期") == {"line 2", "phase 3"}
    assert periods("Tram Line 2, Phase 3") == {"line 2", "phase 3"}
    # Instalments, "the previous issue", "the first step", "the first Monday": no member.
    assert periods("可分12期付款，详见上一期简报") == set()
    assert periods("The first step is easy; meet on the first Monday.") == set()


def test_a_report_of_another_edition_loses_even_where_its_sentence_names_none() -> None:
    assert period_fit({"edition 12"}, "金奖由《远山》获得。", "",
                      periods("第十一届梧桐读书节昨日闭幕。")) == -1
    assert period_fit({"edition 12"}, "金奖由《远山》获得。", "",
                      periods("第十二届梧桐读书节昨日闭幕。")) == 1
    # A passage naming several years (a career, a history) says nothing of which one a
    # sentence of it is about.
    career = periods("The choir was founded in 1952, toured Japan in 1971 and disbanded in 1990.")
    assert period_fit({"1971"}, "It recorded eleven albums.", "", career) == 0
    assert period_fit({"1985"}, "It recorded eleven albums.", "", career) == 0
    # A year the question names is not contradicted by an edition the passage names.
    assert period_fit({"2025"}, "金奖由《远山》获得。", "", periods("第十一届读书节")) == 0
    pool = [doc(1, "第十一届梧桐读书节昨日闭幕。本届金奖由小说《远山》获得。", "读书节简讯"),
            doc(2, "第十二届梧桐读书节昨日闭幕。本届金奖由诗集《白鹭》获得。", "读书节简讯",
                rank=1)]
    draft = ask("第十二届梧桐读书节的金奖是哪部作品？", pool)
    assert any("白鹭" in s for s in quoted(draft))
    assert not any("远山" in s for s in quoted(draft))


def test_the_sentence_about_the_asked_year_wins_over_its_twin() -> None:
    pool = [doc(1, "The canteen subsidy in 2024 was 15 yuan per working day.", "Canteen notes"),
            doc(2, "The canteen subsidy in 2025 was 18 yuan per working day.", "Canteen notes",
                rank=1)]
    draft = ask("What was the canteen subsidy per working day in 2025?", pool)
    assert quoted(draft)[0].startswith("The canteen subsidy in 2025")


def test_two_current_documents_that_disagree_are_both_quoted_and_cited() -> None:
    pool = [doc(1, "New hires get 12 days of paid annual leave.", "Staff Handbook"),
            doc(2, "New hires get 10 days of paid annual leave.", "HR FAQ", rank=1)]
    draft = ask("How many days of paid annual leave do new hires get?", pool)
    assert not draft["refused"]
    assert draft["sentences"][0].get("note")
    assert "disagree" in draft["sentences"][0]["text"]
    assert sorted(s["cites"][0] for s in draft["sentences"][1:]) == [1, 2]
    # The same value twice is agreement, not a conflict.
    same = [pool[0], doc(2, "New hires get 12 days of paid annual leave.", "HR FAQ", rank=1)]
    agreed = ask("How many days of paid annual leave do new hires get?", same)
    assert not any(s.get("note") for s in agreed["sentences"])
    # The superseded one is not a second opinion.
    old = doc(3, "New hires get 10 days of paid annual leave.", "Staff Handbook 2023", rank=1)
    new = doc(4, "This replaces the Staff Handbook 2023. New hires get 12 days of paid annual "
                 "leave.", "Staff Handbook 2025")
    current = ask("How many days of paid annual leave do new hires get?", [old, new])
    assert not any(s.get("note") for s in current["sentences"])
    assert "12 days" in quoted(current)[0]


def test_a_chinese_disagreement_notice_follows_the_asker() -> None:
    pool = [doc(1, "新员工试用期为 3 个月。", "员工手册"),
            doc(2, "新员工试用期为 6 个月。", "入职指南", rank=1)]
    draft = ask("新员工试用期是几个月？", pool)
    assert "不一致" in draft["sentences"][0]["text"]
    assert len(quoted(draft)) == 2


def test_a_refusal_that_shows_what_was_found_cites_only_that() -> None:
    pool = [doc(1, "The road bike line sold 400 units in 2025.", "Sales 2025"),
            doc(2, "Office plants are watered on Fridays.", "Facilities", rank=1)]
    draft = ask("How many units did the gravel line sell in 2025?", pool)
    assert draft["refused"]
    text, cited = cite_documents(draft, pool, "en")
    assert '"gravel"' in text
    assert "400 units" in text
    assert [c["doc_id"] for c in cited] == ["doc-1"]
    # Nothing close enough: a plain refusal that cites nothing.
    far = [doc(2, "Office plants are watered on Fridays; the gravel path is raked.",
               "Facilities")]
    bare = ask("How many units did the gravel line sell in 2025?", far)
    assert bare["refused"]
    assert cite_documents(bare, far, "en")[1] == []


def test_numbers_in_answers_to_a_question_that_asks_no_value_are_no_disagreement() -> None:
    pool = [doc(1, "Mara Quill advised the mayor of Lisbon for 12 years.", "Mara Quill"),
            doc(2, "Mara Quill advised the mayor of Porto for 3 years.", "Quill family", rank=1)]
    draft = ask("Mara Quill advised the mayor of which city?", pool)
    assert not any(s.get("note") for s in draft["sentences"])


def test_another_years_report_does_not_answer_however_many_words_it_repeats() -> None:
    # Two reports of a yearly regatta, dated: the 2026 one repeats the question's words; the
    # 2025 one, asked about, says less of them and never names its year.
    this_year = Passage(
        chunk_id=1, doc_id="regatta-2026", title="Riverside Regatta: women's sculls record",
        source="regatta-2026.md", doc_type="news", heading_path=[],
        text="Mara Lind won the women's single sculls race of the Riverside Regatta in record "
             "time. About 9,000 spectators lined the river.",
        score=1.0, rank=0, round=1, sub_id="q1", date="2026-05-11")
    last_year = Passage(
        chunk_id=2, doc_id="regatta-2025", title="Rowing on the river", source="regatta-2025.md",
        doc_type="news", heading_path=[],
        text="The rowing weekend ended on Sunday. Ines Varga took the sculls title for women.",
        score=1.0, rank=1, round=1, sub_id="q1", date="2025-05-12")
    draft = ask("Who won the women's single sculls at the 2025 Riverside Regatta?",
                [this_year, last_year])
    assert "Ines Varga" in quoted(draft)[0]
