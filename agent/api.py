"""The public API the chat surfaces (Slack, terminal) and the CLI call.

``build_agent(pool, embedder)`` gives an ``Agent``; ``Agent.ask(Question)`` runs one turn of
the thread ``Question.thread_id`` and returns an ``AnswerResult``. Stage events are passed to
``on_stage`` while the graph runs. A turn that needs a clarification ends with
``AnswerResult.clarification`` set; ``Agent.resume(question, reply)`` continues it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agent.deps import AgentDeps
from agent.engine import OfflineEngine
from agent.graph import build_graph
from agent.memory import checkpoint_saver, postgres_checkpointer
from agent.runner import pending_clarification, run_turn
from agent.types import (
    AgentConfig,
    AnswerResult,
    Citation,
    Clarification,
    OnStage,
    Question,
    StageEvent,
    StageName,
)
from store.crosslang import Translator

if TYPE_CHECKING:
    from psycopg_pool import ConnectionPool

    from agent.engine import Engine
    from store.embedder import Embedder

# The value types are defined in ``agent.types``; they are named here too, as the API's.
__all__ = ["Agent", "AgentConfig", "AgentDeps", "AnswerResult", "Citation", "Clarification",
           "OnStage", "Question", "StageEvent", "StageName", "build_agent"]


class Agent:
    """Answers questions turn by turn; one compiled graph, many threads."""

    def __init__(self, deps: AgentDeps) -> None:
        self.deps = deps
        self._owns_checkpointer = False
        self._graph = build_graph(checkpointer=checkpoint_saver(deps.checkpointer))

    def ask(self, q: Question, on_stage: OnStage | None = None) -> AnswerResult:
        """Run one turn of ``q.thread_id``. A pending clarification is abandoned."""
        return run_turn(self._graph, self.deps, q, on_stage=on_stage, resume=None)

    def resume(self, q: Question, reply: str, on_stage: OnStage | None = None) -> AnswerResult:
        """Answer the pending clarification of ``q.thread_id`` with ``reply``."""
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
        return pending_clarification(self._graph, thread_id)


def build_agent(pool: ConnectionPool, embedder: Embedder, *, engine: Engine | None = None,
                reranker: Any | None = None, checkpointer: Any | None = None,
                config: AgentConfig | None = None, translator: Any | None = None) -> Agent:
    """The agent used by the CLI and the Slack bot.

    ``engine`` defaults to the offline engine; ``checkpointer`` to a Postgres saver on the
    same database as ``pool`` (its own connection pool, set up on first use); ``translator``
    to a ``store.crosslang.Translator`` that parses its dictionary in this process.
    """
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
