"""The full-mode step: each question answered by the agent, thread turns in one thread."""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING

from bot.evaluation.runner import Step, StepOutput

if TYPE_CHECKING:
    from agent.api import Agent
    from bot.evaluation.dataset import Question


def agent_step(agent: Agent, kb: str, *, run_id: str | None = None) -> Step:
    """Answer through the graph. Questions sharing a ``thread`` share one agent thread (the
    runner replays them in turn order); a clarification is answered with nothing new, so
    the agent searches with what it has."""
    from agent.api import Question as AgentQuestion

    run = run_id or uuid.uuid4().hex[:8]

    def step(q: Question) -> StepOutput:
        thread = f"eval:{run}:{q.thread or q.id}"
        asked = AgentQuestion(text=q.question, thread_id=thread, kb=kb)
        result = agent.ask(asked)
        if result.clarification is not None:
            result = agent.resume(asked, q.question)
        return StepOutput(
            retrieved_doc_ids=result.retrieved_doc_ids,
            answer=result.text, refused=result.refused,
            cited_doc_ids=[c.doc_id for c in result.citations],
            rewritten_query=result.rewritten_query, route=result.route, rounds=result.rounds)

    return step
