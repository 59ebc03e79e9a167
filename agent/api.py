"""The public API the chat surfaces (Slack, terminal) and the CLI call.

``build_agent(pool, embedder)`` gives an ``Agent``; ``Agent.ask(Question)`` runs one turn of
the thread ``Question.thread_id`` and returns an ``AnswerResult``. Stage events are passed to
``on_stage`` while the graph runs. A turn that needs a clarification ends with
``AnswerResult.clarification`` set; ``Agent.resume(question, reply)`` continues it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from agent.context import FacetsCache
from store.glossary import GlossaryCache

if TYPE_CHECKING:
    from psycopg_pool import ConnectionPool

    from agent.engine import Engine
    from store.embedding import Embedder

StageName = Literal["understanding", "searching", "evaluating", "writing", "verifying"]


@dataclass(frozen=True)
class Question:
    text: str
    thread_id: str
    kb: str
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

    def to_json(self) -> dict[str, Any]:
        """The ``ragbot ask --json`` shape."""
        return {
            "answer": self.text,
            "citations": [
                {"n": c.n, "doc_id": c.doc_id, "title": c.title, "source": c.source,
                 "chunk_ids": list(c.chunk_ids)}
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


@dataclass
class AgentDeps:
    """Everything a turn needs; passed to the graph through LangGraph's runtime context."""

    pool: ConnectionPool
    embedder: Embedder
    engine: Engine
    checkpointer: Any  # langgraph BaseCheckpointSaver
    reranker: Any | None = None
    config: AgentConfig = field(default_factory=AgentConfig)
    facets_cache: FacetsCache = field(default_factory=FacetsCache)
    # Query terms translated into the KB's other language (store.crosslang); None: off.
    translator: Any | None = None
    # The KB's office glossary (store.glossary), re-read a while after an ingest.
    glossaries: GlossaryCache = field(default_factory=GlossaryCache)


OnStage = Callable[[StageEvent], None]


class Agent:
    """Answers questions turn by turn; one compiled graph, many threads."""

    def __init__(self, deps: AgentDeps) -> None:
        from agent.graph import build_graph
        from agent.memory import checkpoint_saver

        self.deps = deps
        self._owns_checkpointer = False
        self._graph = build_graph(checkpointer=checkpoint_saver(deps.checkpointer))

    def ask(self, q: Question, on_stage: OnStage | None = None) -> AnswerResult:
        """Run one turn of ``q.thread_id``. A pending clarification is abandoned."""
        from agent.runner import run_turn

        return run_turn(self._graph, self.deps, q, on_stage=on_stage, resume=None)

    def resume(self, q: Question, reply: str, on_stage: OnStage | None = None) -> AnswerResult:
        """Answer the pending clarification of ``q.thread_id`` with ``reply``."""
        from agent.runner import run_turn

        return run_turn(self._graph, self.deps, q, on_stage=on_stage, resume=reply)

    def warm_up(self) -> None:
        """Load what the first turn would otherwise load under its deadline (the
        cross-language dictionary); worker processes call it before they take turns."""
        if self.deps.translator is not None:
            self.deps.translator.warm_up()

    def close(self) -> None:
        """Release the checkpointer's connections if the agent opened them."""
        close = getattr(self.deps.checkpointer, "close", None)
        if close is not None and self._owns_checkpointer:
            close()

    def pending_clarification(self, thread_id: str) -> Clarification | None:
        """The clarification ``thread_id`` is waiting on, if any."""
        from agent.runner import pending_clarification

        return pending_clarification(self._graph, thread_id)


def build_agent(pool: ConnectionPool, embedder: Embedder, *, engine: Engine | None = None,
                reranker: Any | None = None, checkpointer: Any | None = None,
                config: AgentConfig | None = None, translator: Any | None = None) -> Agent:
    """The agent used by the CLI and the Slack bot.

    ``engine`` defaults to the offline engine; ``checkpointer`` to a Postgres saver on the
    same database as ``pool`` (its own connection pool, set up on first use); ``translator``
    to a ``store.crosslang.Translator`` that parses its dictionary in this process.
    """
    from agent.engine import OfflineEngine
    from agent.memory import postgres_checkpointer
    from store.crosslang import Translator

    agent = Agent(AgentDeps(
        pool=pool,
        embedder=embedder,
        engine=engine or OfflineEngine(),
        checkpointer=checkpointer or postgres_checkpointer(pool),
        reranker=reranker,
        config=config or AgentConfig(),
        translator=translator or Translator(),
    ))
    agent._owns_checkpointer = checkpointer is None
    return agent
