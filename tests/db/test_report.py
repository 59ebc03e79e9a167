"""`ragbot report`: a self-contained page built from eval runs recorded by `ragbot eval`."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import html5lib
import pytest
from psycopg_pool import ConnectionPool

from bot.cli import main
from bot.evaluation.answers import answer_summary
from store import feedback
from store.feedback import DOWN, UP

pytestmark = pytest.mark.db

SETS: dict[str, tuple[list[dict[str, Any]], list[dict[str, Any]]]] = {
    "canteen": (
        [{"id": "menu", "title": "Canteen menu", "text": "The canteen serves noodle soup "
          "every Tuesday and fish curry on Fridays. Lunch runs from 11:30 to 14:00."},
         {"id": "coffee", "title": "Coffee machines", "text": "The espresso machine on floor "
          "3 is descaled every Monday morning by the facilities team."}],
        [{"id": "c1", "question": "When is fish curry served in the canteen?",
          "answers": [["Friday"]], "gold_doc_ids": ["menu"], "answerable": True,
          "kind": "single", "tags": ["food"]},
         {"id": "c2", "question": "Who descales the espresso machine?",
          "answers": [["facilities"]], "gold_doc_ids": ["coffee"], "answerable": True,
          "kind": "single", "tags": ["equipment"]},
         {"id": "c3", "question": "How many parking spaces does the garage have?",
          "answers": [], "gold_doc_ids": [], "answerable": False, "kind": "unanswerable",
          "tags": ["food"]}]),
    "helpdesk": (
        [{"id": "printer", "title": "Printer jams", "text": "When the plotter jams, open "
          "tray B, remove the torn sheet and press the green reset button twice."},
         {"id": "monitor", "title": "Monitor requests", "text": "A second monitor is "
          "requested through the hardware portal and arrives within five working days."}],
        [{"id": "h1", "question": "How do I clear a plotter jam?",
          "answers": [["tray B"]], "gold_doc_ids": ["printer"], "answerable": True,
          "kind": "single", "tags": ["hardware"]},
         {"id": "h2", "question": "How long does a second monitor take to arrive?",
          "answers": [["five working days"]], "gold_doc_ids": ["monitor"], "answerable": True,
          "kind": "single", "tags": ["hardware"]}]),
}


def _dataset(root: Path, name: str) -> Path:
    corpus, questions = SETS[name]
    folder = root / name
    folder.mkdir(parents=True)
    for file, rows in (("corpus.jsonl", corpus), ("questions.jsonl", questions)):
        (folder / file).write_text("".join(json.dumps(r) + "\n" for r in rows),
                                   encoding="utf-8")
    return folder


def _trace(n: int, question: str, answer: str) -> dict[str, Any]:
    return {"trace_id": f"t{n}", "question": question, "rewritten_query": question,
            "answer": answer, "kb": "canteen", "refused": False,
            "retrieved": [{"doc_id": "menu", "title": "Canteen <menu>"}],
            "citations": [{"n": 1, "doc_id": "menu", "title": "Canteen <menu>",
                           "source": "https://intranet.example.com/menu"}],
            "steps": [{"node": "route", "ms": 3.0, "output": {"route": "single_retrieval"}},
                      {"node": "generate", "ms": 40.0, "output": {}}]}


@pytest.fixture
def report(db_url: str, pool: ConnectionPool, tmp_path: Path,
           monkeypatch: pytest.MonkeyPatch) -> tuple[str, dict[str, list[list[Any]]]]:
    monkeypatch.setenv("DATABASE_URL", db_url)
    monkeypatch.setenv("RAGBOT_HOME", str(tmp_path / "home"))
    runs: dict[str, list[list[Any]]] = {}
    for name in SETS:
        folder = _dataset(tmp_path / "sets", name)
        for i, extra in enumerate((["--max-rounds", "1"], [])):
            out = tmp_path / f"{name}-{i}.jsonl"
            assert main(["eval", str(folder), "--out", str(out), *extra]) == 0
            runs.setdefault(name, []).append(
                [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()])
    with pool.connection() as conn:
        feedback.record_vote(conn, channel="C0LUNCH", message_ts="1.1", user="U1", vote=UP,
                             trace_id="t1", trace=_trace(1, "fish day?", "Friday [1]"))
        feedback.record_vote(
            conn, channel="C0HELP", message_ts="2.2", user="U2", vote=DOWN, trace_id="t2",
            trace=_trace(2, "Is there <script>alert(1)</script> soup?",
                         "See https://evil.example.net/x for the soup [1]"))
    page = tmp_path / "out" / "report.html"
    assert main(["report", "--out", str(page)]) == 0
    return page.read_text(encoding="utf-8"), runs


def test_report_is_valid_html_that_loads_nothing_from_the_network(
        report: tuple[str, dict[str, list[list[Any]]]]) -> None:
    page, _ = report
    html5lib.HTMLParser(strict=True).parse(page)  # raises on any parse error
    assert not re.search(r"""\b(src|href)\s*=""", page, re.IGNORECASE)
    assert "@import" not in page
    assert not re.search(r"https?://|//[a-z]", page, re.IGNORECASE)
    assert "<script" not in page.lower()


def test_report_has_every_chart_as_inline_svg_with_the_runs_figures(
        report: tuple[str, dict[str, list[list[Any]]]]) -> None:
    page, runs = report
    ids = re.findall(r'<svg class="chart" id="([^"]+)"', page)
    expected = [f"set{i}-{chart}" for i in range(2)
                for chart in ("answer_acc", "refusal_acc", "false_refusal", "latency")]
    assert ids == [*expected, "votes-week", "votes-channel"]
    for i, name in enumerate(SETS):
        chart = page.split(f'id="set{i}-answer_acc"')[1].split("</svg>")[0]
        for results in runs[name]:
            figure = answer_summary(results)["overall"]["answer_acc"]
            assert re.search(rf'data-series="all" data-x="#\d+ [^"]*" data-value="'
                             rf'{figure:.3f}'.rstrip("0").rstrip("."), chart)
        per_tag = re.findall(r'data-series="([^"]+)"', chart)
        assert set(per_tag) >= {"all", *(t for q in SETS[name][1] for t in q["tags"])}
        assert len(re.findall(r"<circle", chart)) >= 2 * 2  # two runs, all + a tag
        latency = page.split(f'id="set{i}-latency"')[1].split("</svg>")[0]
        assert {"p50", "p95", "p99"} <= set(re.findall(r'data-series="([^"]+)"', latency))
    channels = page.split('id="votes-channel"')[1].split("</svg>")[0]
    assert re.search(r'data-series="👍" data-x="C0LUNCH" data-value="1"', channels)
    assert re.search(r'data-series="👎" data-x="C0HELP" data-value="1"', channels)


def test_latest_down_votes_show_the_trace_escaped_and_without_links(
        report: tuple[str, dict[str, list[list[Any]]]]) -> None:
    page, _ = report
    section = page.split("Latest 👎 answers")[1]
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in section
    assert "Canteen &lt;menu&gt; (menu)" in section  # retrieved and cited, escaped
    assert "See [link] for the soup" in section
    assert "route 3 ms route=single_retrieval" in section
    assert "fish day?" not in section  # a 👍 answer is not listed
