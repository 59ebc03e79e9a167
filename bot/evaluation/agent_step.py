"""The full-mode step: each question answered by the agent, thread turns in one thread."""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING

from bot.evaluation.runner import Step, StepOutput

if TYPE_CHECKING:
    from agent.api import Agent, AnswerResult
    from bot.evaluation.dataset import Question


def agent_step(agent: Agent, kb: str, *, run_id: str | None = None,
               principals: tuple[str, ...] = ("public",)) -> Step:
    """Answer through the graph as ``principals``. Questions sharing a ``thread`` share one
    agent thread (the runner replays them in turn order).

    A question marked ``expect: "clarify"`` that gets a clarifying question keeps it pending:
    the thread's next turn is its reply. Any other clarification is answered with nothing new,
    so the agent searches with what it has.
    """
    from agent.api import Question as AgentQuestion
    from store.search import chunk_texts

    run = run_id or uuid.uuid4().hex[:8]

    def cited(result: AnswerResult) -> list[dict[str, object]]:
        texts = chunk_texts(agent.deps.pool, [i for c in result.citations for i in c.chunk_ids])
        return [{"n": c.n, "doc_id": c.doc_id, "text": texts[i]}
                for c in result.citations for i in c.chunk_ids if i in texts]

    def step(q: Question) -> StepOutput:
        thread = f"eval:{run}:{q.thread or q.id}"
        asked = AgentQuestion(text=q.question, thread_id=thread, kb=kb, principals=principals)
        if agent.pending_clarification(thread) is not None:
            result = agent.resume(asked, q.question)
        else:
            result = agent.ask(asked)
        if result.clarification is not None and q.extra.get("expect") != "clarify":
            result = agent.resume(asked, q.question)
        return StepOutput(
            retrieved_doc_ids=result.retrieved_doc_ids,
            answer=result.text, refused=result.refused,
            cited_doc_ids=[c.doc_id for c in result.citations],
            cited_passages=cited(result),
            rewritten_query=result.rewritten_query, route=result.route, rounds=result.rounds,
            kbs=result.kbs or None)

    return step
