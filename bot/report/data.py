"""What the report shows, computed from eval runs and feedback (pure functions, no I/O)."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from bot.evaluation.answers import answer_summary
from bot.evaluation.metrics import percentile
from store.eval_runs import EvalRun
from store.feedback import AnswerFeedback

RATES = {"answer_acc": "answer accuracy", "refusal_acc": "refusal rate (unanswerable)",
         "false_refusal": "false-refusal rate (answerable)"}
LATENCY = (50, 95, 99)
_URL = re.compile(r"(?:https?|ftp|file)://\S+|www\.\S+", re.IGNORECASE)


@dataclass
class SetHistory:
    """One evaluation set over time: a label per run and each figure per run."""

    name: str
    labels: list[str] = field(default_factory=list)
    runs: list[EvalRun] = field(default_factory=list)
    # metric -> series ("all" or a tag) -> value per run (None: not measured in that run)
    rates: dict[str, dict[str, list[float | None]]] = field(default_factory=dict)
    latency: dict[str, list[float | None]] = field(default_factory=dict)
    tags: list[str] = field(default_factory=list)

    def chart_series(self, metric: str, limit: int = 8) -> dict[str, list[float | None]]:
        """"all" and the tags with the most questions, up to ``limit`` lines (a chart with
        more is unreadable; the per-tag table holds every tag)."""
        latest = self.runs[-1].results if self.runs else []
        size = {t: sum(1 for r in latest if t in ((r.get("scores") or {}).get("tags") or []))
                for t in self.tags}
        keep = ["all", *sorted(self.tags, key=lambda t: (-size[t], t))[: limit - 1]]
        return {name: self.rates[metric][name] for name in keep}


@dataclass(frozen=True)
class DownVote:
    """A 👎 answer as the report lists it: every text is plain, links removed."""

    when: str
    channel: str
    question: str
    rewrite: str
    answer: str
    retrieved: list[str]
    cited: list[str]
    steps: list[str]


def _value(x: Any) -> float | None:
    return float(x) if isinstance(x, int | float) and math.isfinite(x) else None


def run_label(run: EvalRun) -> str:
    """``#id commit`` (or the date when the run has no commit)."""
    return f"#{run.id} {run.code_commit[:7]}" if run.code_commit else \
        f"#{run.id} {run.started_at:%m-%d}"


def set_histories(runs: Sequence[EvalRun]) -> list[SetHistory]:
    """Per set, in order of first run: rates overall and per tag, latency percentiles."""
    by_set: dict[str, SetHistory] = {}
    for run in runs:
        by_set.setdefault(run.set_name, SetHistory(run.set_name)).runs.append(run)
    for history in by_set.values():
        summaries = [answer_summary(r.results) for r in history.runs]
        tags = sorted({t for s in summaries for t in s["by_tag"]})
        history.tags = tags
        history.labels = [run_label(r) for r in history.runs]
        for metric in RATES:
            series = {"all": [_value(s["overall"].get(metric)) for s in summaries]}
            for tag in tags:
                series[tag] = [_value(s["by_tag"].get(tag, {}).get(metric)) for s in summaries]
            history.rates[metric] = series
        for pct in LATENCY:
            history.latency[f"p{pct}"] = [
                _value(percentile([float(x["latency_ms"]) for x in r.results
                                   if x.get("latency_ms") is not None], pct))
                for r in history.runs]
    return list(by_set.values())


def votes_by(items: Sequence[AnswerFeedback], key: str) -> tuple[list[str], dict[str, list[
        float | None]]]:
    """👍 and 👎 counts per ISO week (``key="week"``) or per channel, in label order."""
    up: Counter[str] = Counter()
    down: Counter[str] = Counter()
    for item in items:
        if key == "week":
            year, week, _ = item.last_vote_at.isocalendar()
            label = f"{year}-W{week:02d}"
        else:
            label = item.channel
        up[label] += item.up
        down[label] += item.down
    labels = sorted(set(up) | set(down))
    return labels, {"👍": [float(up[x]) for x in labels], "👎": [float(down[x]) for x in labels]}


def plain(text: Any, limit: int = 600) -> str:
    """Text for the page: links removed (a report is shared), whitespace folded, shortened."""
    folded = " ".join(_URL.sub("[link]", str(text or "")).split())
    return folded if len(folded) <= limit else folded[: limit - 1] + "…"


def _doc_names(items: Any) -> list[str]:
    names: list[str] = []
    for item in items or []:
        if isinstance(item, dict):
            name = item.get("title") or item.get("doc_id")
            doc_id = item.get("doc_id")
            label = f"{name} ({doc_id})" if name and doc_id and name != doc_id else name
        else:
            label = item
        if label and plain(label, 120) not in names:
            names.append(plain(label, 120))
    return names


def _steps(trace: dict[str, Any]) -> list[str]:
    out = []
    for step in trace.get("steps") or []:
        if not isinstance(step, dict):
            continue
        raw = step.get("output")
        output: dict[str, Any] = raw if isinstance(raw, dict) else {}
        facts = [f"{k}={plain(output[k], 40)}" for k in ("route", "verdict", "round", "refused")
                 if k in output]
        ms = step.get("ms")
        took = f" {ms:.0f} ms" if isinstance(ms, int | float) else ""
        out.append(plain(f"{step.get('node', '?')}{took} {' '.join(facts)}".strip(), 120))
    if not out:
        facts = [f"{k}={plain(trace[k], 40)}" for k in ("route", "rounds", "refused")
                 if k in trace]
        out = [" ".join(facts)] if facts else []
    return out


def latest_down_votes(items: Sequence[AnswerFeedback], limit: int = 10) -> list[DownVote]:
    """The newest answers with a 👎, newest first."""
    downs = sorted((i for i in items if i.down), key=lambda i: i.last_vote_at, reverse=True)
    return [DownVote(when=f"{i.last_vote_at:%Y-%m-%d %H:%M}", channel=i.channel,
                     question=plain(i.trace.get("question")),
                     rewrite=plain(i.trace.get("rewritten_query") or i.trace.get("question")),
                     answer=plain(i.trace.get("answer")),
                     retrieved=_doc_names(i.trace.get("retrieved")),
                     cited=_doc_names(i.trace.get("citations") or i.trace.get("cited_doc_ids")),
                     steps=_steps(i.trace))
            for i in downs[:limit]]
