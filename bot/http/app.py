"""Wiring only: the one ASGI app ``ragbot serve --http`` runs under uvicorn.

- ``POST /slack/events``: Slack's events, interactivity and commands, through Bolt's own
  Starlette adapter functions. Bolt's sync ``App.dispatch`` (signature check, dedup claim in
  Postgres, ack) runs on the thread pool, so one request's database round trip never holds
  up another's ack;
- ``POST /api/messages`` when Teams is configured (``bot.teams.endpoint``): the token
  check, claim and journal run on the thread pool too, and the turn after the 200;
- ``GET /healthz``: 200 when the database answers, else 503;
- ``GET /metrics``: Prometheus text (``bot.http.metrics``);
- ``/api/ask`` and ``/api/ask/stream`` when API tokens are set (``bot.http.api``).

Every request first passes the body limits (``bot.http.limits``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from slack_bolt.adapter.starlette.handler import to_bolt_request, to_starlette_response
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from bot.http.api import QueryApi
from bot.http.limits import ASGIApp, Limits, RequestLimits
from bot.http.metrics import Metrics, MetricsEndpoint
from bot.http.server import HttpServer, ServerLimits
from store.db import reachable

if TYPE_CHECKING:
    from pathlib import Path

    from psycopg_pool import ConnectionPool
    from slack_bolt import App
    from starlette.requests import Request

    from bot.conversations.deps import AgentPort, ConversationDeps
    from bot.teams.endpoint import TeamsEndpoint

Endpoint = Callable[["Request"], Awaitable[Response]]
EVENTS_PATH = "/slack/events"
TEAMS_PATH = "/api/messages"
SLACK = "slack"
TEAMS = "teams"


@dataclass(frozen=True)
class HttpDeps:
    bolt: App | None  # None: Teams alone, no /slack/events
    pool: ConnectionPool
    metrics: Metrics
    scrape: MetricsEndpoint
    limits: Limits
    api: QueryApi | None = None  # None: no API tokens, the /api routes do not exist
    teams: TeamsEndpoint | None = None  # None: Teams is not configured


def http_server(deps: ConversationDeps, bolt: App | None, *, host: str, port: int,
                api_agent: Callable[[], AgentPort] | None = None,
                metrics_dir: Path | None = None,
                teams: TeamsEndpoint | None = None) -> HttpServer:
    """The server for ``bolt`` (None: no Slack) and ``deps`` with the limits and API
    tokens of their settings. The query API answers with ``api_agent()`` (built on first
    use), else with the deps' own agent."""
    s = deps.settings
    api = None
    if s.api_tokens:
        agent = api_agent or _own_agent(deps)
        api = QueryApi(tokens=s.api_tokens, agent=agent, default_kb=deps.default_kb,
                       metrics=deps.metrics)
    app = build_http_app(HttpDeps(
        bolt=bolt, pool=deps.pool, metrics=deps.metrics,
        scrape=MetricsEndpoint(deps.metrics, multiproc_dir=metrics_dir, work=deps.work),
        limits=Limits(s.http_max_body_bytes, s.http_read_timeout_s), api=api, teams=teams))
    return HttpServer(app, host, port, ServerLimits(s.http_max_connections,
                                                    s.http_keepalive_s))


def _own_agent(deps: ConversationDeps) -> Callable[[], AgentPort]:
    agent = deps.agent
    if agent is None:
        raise ValueError("RAGBOT_API_TOKENS is set but this process has no agent to answer "
                         "with (pass api_agent)")
    return lambda: agent


def build_http_app(deps: HttpDeps) -> ASGIApp:
    """The ASGI app: routes behind the request limits."""
    routes = [Route("/healthz", _healthz(deps), methods=["GET"]),
              Route("/metrics", _metrics(deps), methods=["GET"])]
    if deps.bolt is not None:
        routes.append(Route(EVENTS_PATH, _slack_events(deps.bolt, deps), methods=["POST"]))
    if deps.teams is not None:
        routes.append(Route(TEAMS_PATH, _teams_messages(deps.teams, deps), methods=["POST"]))
    if deps.api is not None:
        routes.extend(deps.api.routes())
    return RequestLimits(Starlette(routes=routes), deps.limits)


def _slack_events(bolt: App, deps: HttpDeps) -> Endpoint:
    metrics = deps.metrics

    async def slack_events(request: Request) -> Response:
        started = time.perf_counter()
        bolt_request = to_bolt_request(request, await request.body())
        bolt_response = await run_in_threadpool(bolt.dispatch, bolt_request)
        status = bolt_response.status
        metrics.requests.labels(SLACK, str(status)).inc()
        if 200 <= status < 300:
            metrics.acks.labels(SLACK).inc()
            metrics.ack_seconds.labels(SLACK).observe(time.perf_counter() - started)
        return to_starlette_response(bolt_response)

    return slack_events


def _teams_messages(teams: TeamsEndpoint, deps: HttpDeps) -> Endpoint:
    metrics = deps.metrics

    async def teams_messages(request: Request) -> Response:
        started = time.perf_counter()
        try:
            activity = json.loads(await request.body())
        except ValueError:
            activity = None
        if not isinstance(activity, dict):
            metrics.requests.labels(TEAMS, "400").inc()
            return PlainTextResponse("the body must be a Bot Framework activity (JSON)",
                                     status_code=400)
        status, body = await run_in_threadpool(
            teams.receive, request.headers.get("authorization"), activity)
        metrics.requests.labels(TEAMS, str(status)).inc()
        if 200 <= status < 300:
            metrics.acks.labels(TEAMS).inc()
            metrics.ack_seconds.labels(TEAMS).observe(time.perf_counter() - started)
        if body is None:
            return Response(status_code=status)
        return JSONResponse(body, status_code=status)

    return teams_messages


def _healthz(deps: HttpDeps) -> Endpoint:
    async def healthz(request: Request) -> Response:
        if await run_in_threadpool(reachable, deps.pool):
            return PlainTextResponse("ok")
        return PlainTextResponse("database unreachable", status_code=503)

    return healthz


def _metrics(deps: HttpDeps) -> Endpoint:
    async def metrics(request: Request) -> Response:
        body = await run_in_threadpool(deps.scrape.render)
        return Response(body, media_type=deps.scrape.content_type)

    return metrics
