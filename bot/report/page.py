"""The report as one self-contained HTML page: inline CSS and SVG, no script, no URL."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from html import escape

from bot.report import svg
from bot.report.data import LATENCY, RATES, DownVote, SetHistory

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px;color:#222;
max-width:1180px}
h1{font-size:22px}h2{font-size:18px;margin-top:32px;border-bottom:1px solid #ccc}
h3{font-size:15px}.charts{display:flex;flex-wrap:wrap;gap:12px}
.chart{border:1px solid #eee;background:#fff}
table{border-collapse:collapse;font-size:12px;margin:8px 0}
td,th{border:1px solid #ddd;padding:3px 6px;text-align:left;vertical-align:top}
.down{border:1px solid #eee;padding:8px 12px;margin:10px 0;font-size:13px}
.muted{color:#666;font-size:12px}
"""


def _runs_table(history: SetHistory) -> str:
    rows = "".join(
        f"<tr><td>{escape(label)}</td><td>{run.started_at:%Y-%m-%d %H:%M}</td>"
        f"<td>{escape(run.kb)}</td><td>{escape(run.code_commit or '-')}</td>"
        f"<td>{len(run.results)}</td><td>{escape(_settings(run.settings))}</td></tr>"
        for label, run in zip(history.labels, history.runs, strict=True))
    return ("<table><tr><th>run</th><th>started (UTC)</th><th>kb</th><th>commit</th>"
            f"<th>questions</th><th>settings</th></tr>{rows}</table>")


def _settings(settings: dict[str, object]) -> str:
    return ", ".join(f"{k}={v}" for k, v in sorted(settings.items()) if v not in (None, False))


def _set_section(index: int, history: SetHistory) -> str:
    charts = [svg.line_chart(f"{history.name}: {title}", f"set{index}-{metric}",
                             history.labels, history.chart_series(metric), y_max=1.0)
              for metric, title in RATES.items()]
    charts.append(svg.line_chart(f"{history.name}: latency", f"set{index}-latency",
                                 history.labels, history.latency, unit=" ms"))
    return (f"<h2>Set {escape(history.name)}</h2>{_runs_table(history)}"
            f'<div class="charts">{"".join(charts)}</div>{_tag_table(history)}')


def _tag_table(history: SetHistory) -> str:
    """Every tag's rates in every run (the charts show the largest tags only)."""
    if not history.tags:
        return ""
    head = "".join(f"<th>{escape(label)}<br>{escape(short)}</th>" for label in history.labels
                   for short in ("acc", "refusal", "false ref."))
    rows = []
    for tag in ["all", *history.tags]:
        cells = "".join(
            f"<td>{'-' if v is None else f'{v:.3f}'}</td>"
            for i in range(len(history.labels))
            for v in (history.rates[m][tag][i] for m in RATES))
        rows.append(f"<tr><td>{escape(tag)}</td>{cells}</tr>")
    return (f"<h3>{escape(history.name)} per tag</h3>"
            f"<table><tr><th>tag</th>{head}</tr>{''.join(rows)}</table>")


def _down_vote(vote: DownVote) -> str:
    def items(values: Sequence[str]) -> str:
        return ", ".join(escape(v) for v in values) or "-"

    steps = "".join(f"<li>{escape(s)}</li>" for s in vote.steps) or "<li>-</li>"
    return (f'<div class="down"><div class="muted">{escape(vote.when)} · channel '
            f"{escape(vote.channel)}</div><p><b>Question:</b> {escape(vote.question)}</p>"
            f"<p><b>Rewrite:</b> {escape(vote.rewrite)}</p>"
            f"<p><b>Answer:</b> {escape(vote.answer)}</p>"
            f"<p><b>Retrieved:</b> {items(vote.retrieved)}</p>"
            f"<p><b>Cited:</b> {items(vote.cited)}</p>"
            f"<p><b>Trace:</b></p><ol>{steps}</ol></div>")


def render(*, generated: datetime, histories: Sequence[SetHistory],
           weeks: tuple[list[str], svg.Series], channels: tuple[list[str], svg.Series],
           down_votes: Sequence[DownVote]) -> str:
    """The whole page. Every text from runs, settings and traces is escaped."""
    evals = "".join(_set_section(i, h) for i, h in enumerate(histories)) or \
        "<p>No eval runs recorded yet: run <code>ragbot eval DIR --out RESULTS.jsonl</code>.</p>"
    feedback = (
        '<div class="charts">'
        + svg.bar_chart("👍 / 👎 per week", "votes-week", weeks[0], weeks[1])
        + svg.bar_chart("👍 / 👎 per channel", "votes-channel", channels[0], channels[1])
        + "</div>") if weeks[0] else "<p>No 👍/👎 feedback recorded yet.</p>"
    downs = "".join(_down_vote(v) for v in down_votes) or "<p>No 👎 answers.</p>"
    pcts = "/".join(f"p{p}" for p in LATENCY)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        "<title>ragbot report</title>"
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<style>{_CSS}</style></head><body>"
        f"<h1>ragbot report</h1><p class=\"muted\">Generated {generated:%Y-%m-%d %H:%M} UTC "
        f"from {sum(len(h.runs) for h in histories)} eval runs. Rates are 0–1 per run, "
        f"overall (all) and per tag; latency is {pcts} per run in milliseconds.</p>"
        f"<h2>Evaluation history</h2>{evals}"
        f"<h2>Feedback</h2>{feedback}"
        f"<h2>Latest 👎 answers</h2>{downs}"
        "</body></html>\n")
