"""What ``GET /metrics`` reports, in the Prometheus text format (prometheus-client).

Answers are counted in the worker processes that produce them, acks in the process that
serves HTTP, so ``ragbot serve`` runs prometheus-client in multiprocess mode: every process
writes its figures to its own file in one directory (``enable_multiprocess``) and a scrape
sums the files. Queue depth and workers alive are read live from the serving process at
scrape time. Without a directory (tests, a single process) figures stay in memory.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.multiprocess import MultiProcessCollector

if TYPE_CHECKING:
    from agent.api import AnswerResult

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"  # prometheus-client's own switch


def enable_multiprocess(directory: Path) -> None:
    """Make this process and the processes it starts from now on write their figures to
    ``directory``. prometheus-client reads the switch from the environment (the only way
    it offers) and picks its value store once, on import; a process that imported it
    earlier picks again here, before any metric exists."""
    from prometheus_client import values

    os.environ[MULTIPROC_ENV] = str(directory)
    values.ValueClass = values.get_value_class()  # type: ignore[no-untyped-call]  # untyped lib


@runtime_checkable
class WorkFigures(Protocol):
    """Live figures of the turn work pool (``bot.conversations.work.ProcessTurnWork``)."""

    def depth(self) -> int: ...

    def alive(self) -> int: ...


class Metrics:
    """The bot's counters and histograms. Labels: ``surface`` ("slack", "api")."""

    def __init__(self) -> None:
        # registry=None: the scrape (``MetricsEndpoint``) decides where figures come from,
        # and several bots in one process (tests) each keep their own
        def counter(name: str, doc: str, *labels: str) -> Counter:
            return Counter(name, doc, ["surface", *labels], registry=None)

        self.requests = counter("ragbot_http_requests", "HTTP requests answered", "status")
        self.acks = counter("ragbot_acks", "Events acknowledged (2xx) to the chat surface")
        self.ack_seconds = Histogram(
            "ragbot_ack_seconds", "Request received to acknowledgement sent", ["surface"],
            buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.2, 0.3, 0.5, 1.0, 3.0), registry=None)
        self.questions = counter("ragbot_questions", "Questions accepted")
        self.answers = counter("ragbot_answers", "Questions answered (not refused)")
        self.refusals = counter("ragbot_refusals", "Questions refused: nothing to cite")
        self.clarifications = counter("ragbot_clarifications", "Clarifying questions asked")
        self.failures = counter("ragbot_failures", "Turns that failed (the asker got an apology)")
        self.votes = counter("ragbot_votes", "Feedback votes", "vote")
        self.answer_seconds = Histogram(
            "ragbot_answer_seconds", "Agent time per answered turn", ["surface"],
            buckets=(0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0, 60.0), registry=None)
        self._all = (self.requests, self.acks, self.ack_seconds, self.questions, self.answers,
                     self.refusals, self.clarifications, self.failures, self.votes,
                     self.answer_seconds)

    def outcome(self, surface: str, result: AnswerResult | None, seconds: float) -> None:
        """Count one finished turn: ``result`` None means it failed."""
        if result is None:
            self.failures.labels(surface).inc()
            return
        if result.clarification is not None:
            self.clarifications.labels(surface).inc()
        elif result.refused:
            self.refusals.labels(surface).inc()
        else:
            self.answers.labels(surface).inc()
        self.answer_seconds.labels(surface).observe(seconds)

    def collect(self) -> Iterator[Metric]:
        """This process's figures (the in-memory mode's scrape)."""
        for metric in self._all:
            yield from metric.collect()


class _Live:
    def __init__(self, work: WorkFigures) -> None:
        self._work = work

    def collect(self) -> Iterator[Metric]:
        yield GaugeMetricFamily("ragbot_queue_depth", "Turns waiting for a free worker",
                                value=self._work.depth())
        yield GaugeMetricFamily("ragbot_workers_alive", "Turn worker processes up",
                                value=self._work.alive())


class MetricsEndpoint:
    """One scrape's text: every process's figures (multiprocess mode, when
    ``multiproc_dir`` is set) or this process's, plus the live gauges of ``work``."""

    content_type = CONTENT_TYPE_LATEST

    def __init__(self, metrics: Metrics, *, multiproc_dir: Path | None = None,
                 work: object | None = None) -> None:
        self.registry = CollectorRegistry()
        if multiproc_dir is not None:
            MultiProcessCollector(  # type: ignore[no-untyped-call]  # untyped in the library
                self.registry, path=str(multiproc_dir))
        else:
            self.registry.register(metrics)
        if isinstance(work, WorkFigures):
            self.registry.register(_Live(work))

    def render(self) -> bytes:
        return generate_latest(self.registry)
