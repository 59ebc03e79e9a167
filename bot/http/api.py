"""The query API: ``POST /api/ask`` (JSON) and ``GET /api/ask/stream`` (server-sent events:
the stage events, then the answer), for holders of a ``RAGBOT_API_TOKENS`` bearer token.

A token reads only what its principals may read, and its conversations are its own: the
thread id a client names is kept apart from every other token's and from Slack's.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

import anyio
import structlog
from pydantic import BaseModel, Field, ValidationError
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from bot.http.tokens import ApiToken, find_token

if TYPE_CHECKING:
    from starlette.requests import Request

    from agent.api import AnswerResult, OnStage, StageEvent
    from bot.http.metrics import Metrics
    from bot.slack.deps import AgentPort

log = structlog.get_logger("ragbot.http.api")

SURFACE = "api"
MAX_QUESTION_CHARS = 4000


class AskRequest(BaseModel):
    question: str = Field(min_length=1, max_length=MAX_QUESTION_CHARS)
    thread_id: str | None = Field(default=None, min_length=1, max_length=200)
    kb: str | None = Field(default=None, min_length=1, max_length=100)


@dataclass
class QueryApi:
    """The routes and what they need. ``agent`` is called once, on the first question (the
    serving process loads no model until the API is used)."""

    tokens: tuple[ApiToken, ...]
    agent: Callable[[], AgentPort]
    default_kb: str
    metrics: Metrics
    # agent turns at once: CPU work beside the acks this process owes Slack
    concurrency: int = 2

    def __post_init__(self) -> None:
        self._limiter: anyio.CapacityLimiter | None = None
        self._agent: AgentPort | None = None

    def routes(self) -> list[Route]:
        return [Route("/api/ask", self.ask, methods=["POST"]),
                Route("/api/ask/stream", self.stream, methods=["GET"])]

    async def ask(self, request: Request) -> Response:
        token = self._authenticate(request)
        if token is None:
            return self._reply(_unauthorized())
        try:
            body = _with_thread(AskRequest.model_validate_json(await request.body()))
        except ValidationError as exc:
            return self._reply(_bad_request(exc))
        trace_id = uuid.uuid4().hex
        try:
            result = await self._run(token, body, trace_id, on_stage=None)
        except Exception:
            return self._reply(_failed(trace_id))
        return self._reply(JSONResponse(_payload(result, body)))

    async def stream(self, request: Request) -> Response:
        token = self._authenticate(request)
        if token is None:
            return self._reply(_unauthorized())
        try:
            body = _with_thread(AskRequest.model_validate(dict(request.query_params)))
        except ValidationError as exc:
            return self._reply(_bad_request(exc))
        trace_id = uuid.uuid4().hex
        events: asyncio.Queue[tuple[str, dict[str, Any]] | None] = asyncio.Queue()
        loop = asyncio.get_running_loop()

        def on_stage(event: StageEvent) -> None:  # on the agent's thread
            if event.answer:
                return  # the answer comes whole, in its own event
            loop.call_soon_threadsafe(events.put_nowait, ("stage", {
                "stage": event.stage, "round": event.round, "message": event.message}))

        async def answer() -> None:
            try:
                result = await self._run(token, body, trace_id, on_stage=on_stage)
                events.put_nowait(("answer", _payload(result, body)))
            except Exception:
                events.put_nowait(("error", {"error": "the question could not be answered",
                                             "trace_id": trace_id}))
            finally:
                events.put_nowait(None)

        async def sse() -> AsyncIterator[str]:
            task = asyncio.create_task(answer())
            while (item := await events.get()) is not None:
                name, data = item
                yield f"event: {name}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"
            await task

        return self._reply(StreamingResponse(sse(), media_type="text/event-stream",
                                             headers={"Cache-Control": "no-cache"}))

    # ------------------------------------------------------------------ helpers

    def _authenticate(self, request: Request) -> ApiToken | None:
        scheme, _, presented = request.headers.get("authorization", "").partition(" ")
        token = find_token(self.tokens, presented.strip()) if scheme.lower() == "bearer" \
            else None
        if token is None:
            log.warning("api_unauthorized", path=request.url.path,
                        scheme=scheme.lower() or None)
        return token

    async def _run(self, token: ApiToken, body: AskRequest, trace_id: str,
                   on_stage: OnStage | None) -> AnswerResult:
        """Answer on a worker thread; logs and re-raises a failure (with ``trace_id``)."""
        if self._limiter is None:
            self._limiter = anyio.CapacityLimiter(self.concurrency)
        self.metrics.questions.labels(SURFACE).inc()
        started = time.perf_counter()
        with structlog.contextvars.bound_contextvars(trace_id=trace_id, api_client=token.label):
            try:
                result = await anyio.to_thread.run_sync(
                    partial(self._answer, token, body, on_stage), limiter=self._limiter)
            except Exception:
                log.exception("api_turn_failed")
                self.metrics.outcome(SURFACE, None, time.perf_counter() - started)
                raise
            seconds = time.perf_counter() - started
            self.metrics.outcome(SURFACE, result, seconds)
            log.info("api_answered", route=result.route, refused=result.refused,
                     citations=len(result.citations), agent_trace_id=result.trace_id,
                     latency_ms=round(seconds * 1000, 1))
        return result

    def _answer(self, token: ApiToken, body: AskRequest,
                on_stage: OnStage | None) -> AnswerResult:
        from agent.api import Question

        if self._agent is None:
            self._agent = self.agent()
        agent = self._agent
        # the token's label keeps each holder's threads apart (a client cannot name
        # another's thread, nor a Slack one)
        thread = f"api:{token.label}:{body.thread_id}"
        q = Question(text=body.question, thread_id=thread, kb=body.kb or self.default_kb,
                     principals=token.principals)
        if agent.pending_clarification(thread) is not None:
            return agent.resume(q, body.question, on_stage=on_stage)
        return agent.ask(q, on_stage=on_stage)

    def _reply(self, response: Response) -> Response:
        self.metrics.requests.labels(SURFACE, str(response.status_code)).inc()
        return response


def _with_thread(body: AskRequest) -> AskRequest:
    """``body`` with a thread id: a new one when the client named none (the reply tells
    it, so a follow-up can continue the conversation)."""
    return body if body.thread_id else body.model_copy(update={"thread_id": uuid.uuid4().hex})


def _payload(result: AnswerResult, body: AskRequest) -> dict[str, Any]:
    out = result.to_json()
    # whether documents the token cannot read exist is not the holder's business
    out.pop("restricted_hidden", None)
    out["thread_id"] = body.thread_id
    return out


def _unauthorized() -> Response:
    return JSONResponse({"error": "a valid bearer token is required (RAGBOT_API_TOKENS)"},
                        status_code=401, headers={"WWW-Authenticate": "Bearer"})


def _bad_request(exc: ValidationError) -> Response:
    problems = [f"{'.'.join(str(p) for p in e['loc']) or 'body'}: {e['msg']}"
                for e in exc.errors(include_input=False)]
    return JSONResponse({"error": "bad request", "problems": problems}, status_code=400)


def _failed(trace_id: str) -> Response:
    return JSONResponse({"error": "the question could not be answered", "trace_id": trace_id},
                        status_code=500)
