"""Errors the agent raises on purpose. Messages name the item and the fix."""

from __future__ import annotations


class AgentError(Exception):
    """Base class for the agent's errors."""


class ThreadBusyError(AgentError):
    def __init__(self, thread_id: str, timeout_s: float) -> None:
        super().__init__(
            f"thread {thread_id!r} is still answering an earlier message after {timeout_s:.0f}s; "
            "wait for that answer and ask again")
        self.thread_id = thread_id


class TurnTimeoutError(AgentError):
    def __init__(self, trace_id: str | None, timeout_s: float) -> None:
        traced = f" (trace id {trace_id})" if trace_id else ""
        super().__init__(
            f"no answer within {timeout_s:g}s, so the turn was stopped{traced}; "
            "ask a narrower question, or raise RAGBOT_TURN_TIMEOUT_S")
        self.trace_id = trace_id
        self.timeout_s = timeout_s


class NoPendingClarificationError(AgentError):
    def __init__(self, thread_id: str) -> None:
        super().__init__(
            f"thread {thread_id!r} is not waiting for a clarification; ask the question again")
        self.thread_id = thread_id


class QuestionTooLongError(AgentError):
    def __init__(self, length: int, limit: int) -> None:
        super().__init__(
            f"the question is {length:,} characters long; the limit is {limit:,}: ask about "
            "one part at a time, or quote only the lines that matter")
        self.length = length
        self.limit = limit
