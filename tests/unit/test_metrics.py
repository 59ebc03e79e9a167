"""Evaluation metrics and dataset loading (pure functions, small files)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from bot.evaluation.dataset import DatasetError, load_questions, replay_order
from bot.evaluation.metrics import (
    all_gold_at_k,
    format_summary,
    mrr_at_k,
    percentile,
    recall_at_k,
    retrieval_metrics,
    summarize,
)
from bot.evaluation.runner import StepOutput, result_record, run_questions


def test_recall_counts_any_gold_document_within_k() -> None:
    ranked = ["x", "y", "g2", "z"]
    assert recall_at_k(ranked, ["g1", "g2"], 3) == 1.0
    assert recall_at_k(ranked, ["g1", "g2"], 2) == 0.0
    assert recall_at_k(ranked, [], 10) == 0.0


def test_mrr_is_reciprocal_rank_of_first_gold_within_k() -> None:
    assert mrr_at_k(["a", "g", "g2"], ["g", "g2"]) == pytest.approx(0.5)
    assert mrr_at_k(["g"], ["g"]) == 1.0
    assert mrr_at_k([f"x{i}" for i in range(10)] + ["g"], ["g"], 10) == 0.0


def test_all_gold_needs_every_gold_document() -> None:
    assert all_gold_at_k(["a", "b", "c"], ["a", "c"]) == 1.0
    assert all_gold_at_k(["a", "b"], ["a", "c"]) == 0.0


def test_percentile_is_nearest_rank() -> None:
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 50) == 50.0
    assert percentile(values, 95) == 95.0
    assert percentile([7.0], 95) == 7.0
    assert math.isnan(percentile([], 50))


def test_questions_without_gold_are_left_out_of_retrieval_metrics() -> None:
    metrics = retrieval_metrics([(["g", "x"], ["g"]), (["x", "g"], ["g"]), (["x"], [])])
    assert metrics["scored"] == 2
    assert metrics["recall@1"] == pytest.approx(0.5)
    assert metrics["mrr@10"] == pytest.approx(0.75)


def test_summary_has_overall_and_per_kind_rows() -> None:
    results = [
        {"id": "q1", "retrieved_doc_ids": ["d1"], "latency_ms": 10.0},
        {"id": "q2", "retrieved_doc_ids": ["d9", "d2"], "latency_ms": 30.0},
        {"id": "q3", "retrieved_doc_ids": [], "latency_ms": 20.0},
    ]
    summary = summarize(results, {"q1": ["d1"], "q2": ["d2"], "q3": []},
                        {"q1": "single", "q2": "multi_hop", "q3": "unanswerable"})
    assert summary["overall"]["questions"] == 3
    assert summary["overall"]["scored"] == 2
    assert summary["overall"]["recall@1"] == pytest.approx(0.5)
    assert summary["overall"]["p50_ms"] == 20.0
    assert summary["by_kind"]["multi_hop"]["mrr@10"] == pytest.approx(0.5)
    assert summary["by_kind"]["unanswerable"]["scored"] == 0
    table = format_summary(summary)
    assert table.splitlines()[0].split()[:3] == ["kind", "questions", "scored"]
    assert len(table.splitlines()) == 5


def _write(path: Path, rows: list[object]) -> Path:
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n",
                    encoding="utf-8")
    return path


def test_thread_turns_are_replayed_together_and_in_order(tmp_path: Path) -> None:
    path = _write(tmp_path / "questions.jsonl", [
        {"id": "t1-2", "question": "and then?", "thread": "t1", "turn": 2},
        {"id": "solo", "question": "standalone"},
        {"id": "t1-1", "question": "first", "thread": "t1", "turn": 1},
        {"id": "t2-1", "question": "other", "thread": "t2", "turn": 1},
    ])
    assert [q.id for q in replay_order(load_questions(path))] == ["t1-1", "t1-2", "solo", "t2-1"]


def test_malformed_question_line_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "questions.jsonl"
    path.write_text('{"id": "a", "question": "ok"}\n{"id": "b", "question": \n', encoding="utf-8")
    with pytest.raises(DatasetError, match=r"questions.jsonl:2: not valid JSON"):
        load_questions(path)
    _write(path, [{"id": "a"}])
    with pytest.raises(DatasetError, match=r"questions.jsonl:1: .*\"question\""):
        load_questions(path)
    with pytest.raises(DatasetError, match=r"corpus\.jsonl and questions\.jsonl"):
        load_questions(tmp_path / "missing.jsonl")


def test_result_lines_have_the_designed_fields_and_failures_do_not_stop_the_run(
        tmp_path: Path) -> None:
    questions = load_questions(_write(tmp_path / "q.jsonl", [
        {"id": "ok", "question": "fine", "gold_doc_ids": ["d1"]},
        {"id": "bad", "question": "explodes"},
    ]))

    def step(question: object) -> StepOutput:
        if question.id == "bad":
            raise RuntimeError("boom")
        return StepOutput(retrieved_doc_ids=["d1", "d2"])

    records = list(run_questions(questions, step))
    assert set(records[0]) == {"id", "retrieved_doc_ids", "answer", "refused", "cited_doc_ids",
                               "rewritten_query", "route", "rounds", "latency_ms"}
    assert records[0]["retrieved_doc_ids"] == ["d1", "d2"]
    assert records[0]["answer"] is None
    assert records[0]["refused"] is False
    assert records[1]["error"] == "RuntimeError: boom"
    assert records[1]["retrieved_doc_ids"] == []
    assert result_record(questions[0], StepOutput([]), 1.234)["latency_ms"] == 1.23
