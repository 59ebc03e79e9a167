"""The agent's value types: what a surface hands the agent and what it gets back.

A leaf module (it imports nothing of ``agent``), so ``agent.api``, ``agent.runner`` and every
surface can import it at the top without a cycle.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

StageName = Literal["understanding", "searching", "evaluating", "writing", "verifying"]


@dataclass(frozen=True)
class Question:
    text: str
    thread_id: str
    kb: str  # one KB, or a set of them: "hr+it", "*" for every KB (store.kbset)
    principals: tuple[str, ...] = ("public",)
    user: str | None = None
    # What the asker may read personally (a DM's principals). A refusal is marked
    # ``restricted_hidden`` only when documents these (not ``principals``) may read would
    # have answered; empty: never (nobody can probe for restricted documents).
    asker_principals: tuple[str, ...] = ()


@dataclass(frozen=True)
class Citation:
    n: int
    doc_id: str
    title: str
    source: str
    chunk_ids: tuple[int, ...]
    kb: str = ""  # set when the conversation spans several knowledge bases


@dataclass(frozen=True)
class Clarification:
    question: str
    options: tuple[str, ...]


@dataclass(frozen=True)
class StageEvent:
    """What the graph is doing now; ``message`` is in the question's language."""

    stage: StageName
    round: int | None
    max_rounds: int | None
    message: str
    # The answer's sentences verified so far (cumulative, with [n] marks), when it grew:
    # a surface may show it before the turn ends (``agent.nodes.answer_stream``).
    answer: str = ""


@dataclass
class AnswerResult:
    text: str
    citations: list[Citation]
    refused: bool
    route: str
    rounds: int
    rewritten_query: str | None
    trace_id: str
    latency_ms: float
    clarification: Clarification | None = None
    retrieved_doc_ids: list[str] = field(default_factory=list)
    retrieved_chunk_ids: list[int] = field(default_factory=list)
    # True when relevant documents exist that the asker may not read: the surface says so
    # instead of a bare refusal.
    restricted_hidden: bool = False
    language: str = "en"
    cached: bool = False  # served from the answer cache (store.answer_cache)
    kbs: list[str] = field(default_factory=list)  # searched, when the conversation has several

    def to_json(self) -> dict[str, Any]:
        """The ``ragbot ask --json`` shape."""
        return {
            "answer": self.text,
            "citations": [
                {"n": c.n, "doc_id": c.doc_id, "title": c.title, "source": c.source,
                 "chunk_ids": list(c.chunk_ids), **({"kb": c.kb} if c.kb else {})}
                for c in self.citations
            ],
            "refused": self.refused,
            "route": self.route,
            "rounds": self.rounds,
            "rewritten_query": self.rewritten_query,
            "trace_id": self.trace_id,
            "latency_ms": round(self.latency_ms, 1),
            "clarification": (
                {"question": self.clarification.question,
                 "options": list(self.clarification.options)}
                if self.clarification else None
            ),
            "retrieved_doc_ids": self.retrieved_doc_ids,
            "restricted_hidden": self.restricted_hidden,
            "cached": self.cached,
            **({"kbs": self.kbs} if self.kbs else {}),
        }


@dataclass
class AgentConfig:
    """Knobs of the graph (defaults are the documented behaviour)."""

    max_rounds: int = 3
    k: int = 20  # hits per search (the context pool is trimmed to a token budget)
    context_tokens: int = 3000  # budget of the context pool handed to generate
    overlap_stop: float = 0.7  # stop searching when this share of a round's hits was seen
    lock_timeout_s: float = 120.0  # wait for another turn of the same thread
    # Stop a turn still running after this long (checked between graph steps; a step that
    # never returns is the surface's to stop: see bot.slack.work). None: no limit.
    turn_timeout_s: float | None = None
    answer_cache: bool = True  # RAGBOT_ANSWER_CACHE: reuse answers (agent.cached)


OnStage = Callable[[StageEvent], None]
