"""Full-mode evaluation scoring: answer accuracy, refusals, clarifications, faithfulness,
follow-ups, per-tag tables, comparison."""

from __future__ import annotations

import math

from bot.evaluation.answers import (
    answer_correct,
    answer_summary,
    compare,
    format_answer_summary,
    scores,
)
from bot.evaluation.dataset import Question
from bot.evaluation.faithful import faithfulness
from bot.evaluation.matching import contains, verdict


def test_answer_correct_needs_every_group_in_the_first_600_characters() -> None:
    groups = (("青松和ω-works", "青松"), ("1998",))
    assert answer_correct("由 青松 和 ω-Works 于 1998 年建成", groups) is True
    assert answer_correct("由青松建成", groups) is False
    assert answer_correct("x" * 600 + " 青松 1998", groups) is False
    assert answer_correct("ＡＢＣ", (("abc",),)) is True  # NFKC + casefold
    assert answer_correct("anything", ()) is None


def test_answer_correct_within_200_characters_is_stricter() -> None:
    groups = (("harbour",),)
    late = "The ferry leaves at noon. " * 10 + "It docks in the harbour."
    assert answer_correct(late, groups) is True
    assert answer_correct(late, groups, prefix=200) is False


def test_a_latin_alternative_matches_only_between_word_boundaries() -> None:
    assert not contains("The password is well known.", "no")
    assert contains("No, the password never expires.", "no")
    assert not contains("Leave lasts 15 days.", "5")
    assert contains("Leave lasts 5 days.", "5")
    assert contains("年假为5天", "5")  # a Chinese neighbour is a boundary
    assert not contains("共15天", "5")
    assert contains("CNY800 per night", "CNY 800")  # whitespace is still ignored
    assert not contains("subscribers", "scribe")
    assert contains("仓库位于东港", "东港")  # Chinese matches anywhere


def test_a_yes_no_gold_must_be_the_verdict_among_the_first_five_words() -> None:
    assert verdict("No, the two rivers rise in different countries.") == "no"
    assert verdict("Both bridges are not in the same city.") == "no"
    assert verdict("Yes: both were painters.") == "yes"
    assert verdict("The first painter was born in 1801, and no record shows more.") is None
    assert answer_correct("The first painter was born in 1801; no.", (("no",),)) is False
    assert answer_correct("No. One is a lake, the other a river.", (("no",),)) is True
    assert answer_correct("Yes, and no one doubts it.", (("no",),)) is False


def _line(qid: str, *, refused: bool, answer: str, retrieved: list[str], rounds: int = 1,
          latency: float = 100.0) -> dict:  # type: ignore[type-arg]
    return {"id": qid, "answer": answer, "refused": refused, "retrieved_doc_ids": retrieved,
            "rounds": rounds, "latency_ms": latency}


def test_summary_counts_refusals_false_refusals_and_follow_up_recall() -> None:
    qs = {
        "a": Question(id="a", question="?", gold_doc_ids=("d1",), answers=(("x",),)),
        "b": Question(id="b", question="?", gold_doc_ids=(), answerable=False,
                      kind="unanswerable"),
        "c": Question(id="c", question="?", gold_doc_ids=("d2",), kind="follow_up"),
        "d": Question(id="d", question="?", gold_doc_ids=("d3",), kind="follow_up"),
    }
    lines = [
        _line("a", refused=False, answer="it is x", retrieved=["d1"]),
        _line("b", refused=True, answer="I can't answer", retrieved=["d9"]),
        _line("c", refused=True, answer="I can't answer", retrieved=["d2"], rounds=2),
        _line("d", refused=False, answer="y", retrieved=["d9", "d8"], rounds=3),
    ]
    rows = [{**r, "scores": scores(r, qs[r["id"]])} for r in lines]
    s = answer_summary(rows)["overall"]
    assert s["answer_acc"] == 1.0
    assert s["graded"] == 1
    assert s["refusal_acc"] == 1.0
    assert s["false_refusal"] == 1 / 3
    assert s["followup_r@5"] == 0.5
    assert s["rounds"] == 7 / 4


def test_clarify_questions_count_by_route_and_leave_the_refusal_figures() -> None:
    vague = Question(id="v", question="?", answerable=False, kind="unanswerable",
                     extra={"expect": "clarify", "tags": ["vague"], "lang": "en"})
    absent = Question(id="u", question="?", answerable=False, kind="unanswerable",
                      extra={"tags": ["not_in_kb"], "lang": "zh"})
    lines = [
        {**_line("v", refused=False, answer="Which limit?", retrieved=[]), "route": "clarify"},
        {**_line("u", refused=True, answer="不知道", retrieved=[]), "route": "single_retrieval"},
    ]
    rows = [{**r, "scores": scores(r, q)} for r, q in zip(lines, (vague, absent), strict=True)]
    summary = answer_summary(rows)
    assert summary["overall"]["clarify_acc"] == 1.0
    assert summary["overall"]["refusal_acc"] == 1.0  # only "u" counts
    assert math.isnan(summary["overall"]["answer_acc"])
    assert set(summary["by_tag"]) == {"vague", "not_in_kb"}
    assert summary["by_lang"]["en"]["clarify_acc"] == 1.0
    assert math.isnan(summary["by_lang"]["zh"]["clarify_acc"])
    table = format_answer_summary(summary)
    assert "\ntag " in table
    assert "\nlang " in table
    assert "not_in_kb" in table
    wrong = {**lines[0], "route": "single_retrieval"}
    assert scores(wrong, vague)["answer_correct"] is False


def test_citations_outside_the_gold_documents_are_counted() -> None:
    q = Question(id="a", question="?", gold_doc_ids=("d1",), answers=(("x",),))
    clean = {**_line("a", refused=False, answer="x", retrieved=["d1"]), "cited_doc_ids": ["d1"]}
    mixed = {**clean, "cited_doc_ids": ["d1", "d7"]}
    rows = [{**r, "scores": scores(r, q)} for r in (clean, mixed)]
    assert [r["scores"]["cites_unrelated"] for r in rows] == [False, True]
    assert answer_summary(rows)["overall"]["unrelated"] == 0.5


def test_faithfulness_counts_sentences_found_in_or_covered_by_their_cited_passage() -> None:
    passages = [{"n": 1, "text": "Badges are printed at the front desk. Lost badges cost "
                                 "ten euros to replace."},
                {"n": 2, "text": "The canteen opens at eight."}]
    answer = ("Lost badges cost ten euros to replace.[1] To replace lost badges costs ten "
              "euros.[1] The canteen serves breakfast at seven.[2] Details:")
    # found verbatim, covered by terms, unsupported; the lead-in is not counted
    assert faithfulness(answer, passages) == (2, 3)
    assert faithfulness("Badges are printed at the front desk.[2]", passages) == (0, 1)
    q = Question(id="a", question="?", gold_doc_ids=("d1",), answers=(("euros",),))
    line = {**_line("a", refused=False, answer=answer, retrieved=["d1"]),
            "cited_passages": passages}
    s = answer_summary([{**line, "scores": scores(line, q)}])["overall"]
    assert 0 < s["faithful"] < 1


def test_compare_reports_the_difference_per_kind() -> None:
    q = Question(id="a", question="?", gold_doc_ids=("d1",), answers=(("x",),))
    a = [{**(r := _line("a", refused=False, answer="no", retrieved=["d0"])),
          "scores": scores(r, q)}]
    b = [{**(r := _line("a", refused=False, answer="x", retrieved=["d1"])),
          "scores": scores(r, q)}]
    table = compare(a, b)
    delta = next(line for line in table.splitlines() if "B-A" in line)
    assert "+1.000" in delta


def test_compare_delta_row_lines_up_with_the_header_columns() -> None:
    q = Question(id="a", question="?", gold_doc_ids=("d1",), answers=(("x",),))
    a = [{**(r := _line("a", refused=False, answer="no", retrieved=["d0"])),
          "scores": scores(r, q)}]
    b = [{**(r := _line("a", refused=False, answer="x", retrieved=["d1"])),
          "scores": scores(r, q)}]
    rows = [line.split() for line in compare(a, b).splitlines()]
    header = rows[0]
    assert all(len(row) == len(header) for row in rows), rows
    delta = next(row for row in rows if row[1] == "B-A")
    assert delta[header.index("answer_acc")] == "+1.000"
    assert delta[header.index("questions")] == "+0"
