"""Full-mode evaluation scoring: answer accuracy, refusals, follow-ups, comparison."""

from __future__ import annotations

from bot.evaluation.answers import answer_correct, answer_summary, compare, scores
from bot.evaluation.dataset import Question


def test_answer_correct_needs_every_group_in_the_first_600_characters() -> None:
    groups = (("光荣和ω-force", "光荣"), ("2010",))
    assert answer_correct("由 光荣 和 ω-Force 于 2010 年开发", groups) is True
    assert answer_correct("由光荣开发", groups) is False
    assert answer_correct("x" * 600 + "光荣 2010", groups) is False
    assert answer_correct("ＡＢＣ", (("abc",),)) is True  # NFKC + casefold
    assert answer_correct("anything", ()) is None


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


def test_compare_reports_the_difference_per_kind() -> None:
    q = Question(id="a", question="?", gold_doc_ids=("d1",), answers=(("x",),))
    a = [{**(r := _line("a", refused=False, answer="no", retrieved=["d0"])),
          "scores": scores(r, q)}]
    b = [{**(r := _line("a", refused=False, answer="x", retrieved=["d1"])),
          "scores": scores(r, q)}]
    table = compare(a, b)
    delta = next(line for line in table.splitlines() if "B-A" in line)
    assert "+1.000" in delta
