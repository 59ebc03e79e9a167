"""A local Bot Connector (the Teams side of ``serviceUrl``), a real HTTP server.

It speaks the v3 REST protocol the bot posts with: ``POST /v3/conversations/{id}/activities``
creates an activity (a message, a typing/stream update) and answers its id;
``POST /v3/conversations`` opens a 1:1 chat with one member (``a:1on1-<member id>``);
``PUT /v3/conversations/{id}/activities/{activityId}`` edits one. Every request must carry
a bearer token the fake issuer handed out (else 401). It records every request with its
body and arrival time, keeps each message's current content (edits applied, streams
finalised), and can answer the next calls with a scripted status (429 + ``Retry-After``).
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import unquote

from tests.fakes.local_http import LocalServer
from tests.fakes.teams_issuer import FakeIssuer


@dataclass(frozen=True)
class Request:
    method: str  # POST (create) or PUT (update)
    conversation_id: str
    activity_id: str | None  # the id answered (create) or edited (update)
    body: dict[str, Any]
    status: int
    at: float


@dataclass
class _Script:
    remaining: int
    status: int
    retry_after: int | None
    method: str | None


class FakeConnector:
    def __init__(self, issuer: FakeIssuer) -> None:
        self.issuer = issuer
        self._requests: list[Request] = []
        self._messages: dict[str, dict[str, Any]] = {}  # activity id -> current activity
        self._order: list[tuple[str, str]] = []  # (conversation id, activity id) created
        self._scripts: list[_Script] = []
        self._ids = itertools.count(1)
        self._cond = threading.Condition()
        self._server = LocalServer({"POST": lambda h: self._handle(h, "POST"),
                                    "PUT": lambda h: self._handle(h, "PUT")},
                                   "fake-teams-connector")

    def start(self) -> FakeConnector:
        self._server.start()
        return self

    def stop(self) -> None:
        self._server.stop()

    @property
    def service_url(self) -> str:
        """The activity's ``serviceUrl``."""
        return f"http://127.0.0.1:{self._server.port('FakeConnector')}/teams/"

    # ------------------------------------------------------------------ scripting

    def fail_next(self, status: int = 429, *, times: int = 1, retry_after: int | None = 1,
                  method: str | None = None) -> None:
        """Answer the next ``times`` requests (of ``method``, else any) with ``status``."""
        with self._cond:
            self._scripts.append(_Script(times, status, retry_after, method))

    # ------------------------------------------------------------------ inspection

    def requests(self, conversation_id: str | None = None) -> list[Request]:
        with self._cond:
            return [r for r in self._requests
                    if conversation_id is None or r.conversation_id == conversation_id]

    def messages(self, conversation_id: str) -> list[dict[str, Any]]:
        """The conversation's message activities as they stand now, in creation order
        (typing and informative stream updates are not messages)."""
        with self._cond:
            return [self._messages[aid] for cid, aid in self._order
                    if cid == conversation_id and self._messages[aid].get("type") == "message"]

    def wait_for(self, predicate: Callable[[FakeConnector], Any], timeout: float = 30.0) -> Any:
        """Block until ``predicate(self)`` is truthy (re-checked on each request)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                value = predicate(self)
                if value:
                    return value
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"condition not met in {timeout}s; "
                                       f"{len(self._requests)} requests recorded")
                self._cond.wait(min(left, 0.2))

    # ------------------------------------------------------------------ HTTP

    def _handle(self, req: BaseHTTPRequestHandler, method: str) -> None:
        length = int(req.headers.get("Content-Length") or 0)
        raw = req.rfile.read(length)
        parts = req.path.split("/")
        # /teams/v3/conversations/{id}/activities[/{activityId}]
        if method == "POST" and parts[-1] == "conversations":
            self._open_chat(req, json.loads(raw or b"{}"))
            return
        try:
            at = parts.index("conversations")
            conversation_id = unquote(parts[at + 1])
            activity_id = unquote(parts[at + 3]) if len(parts) > at + 3 else None
        except (ValueError, IndexError):
            self._send(req, 404, {"error": {"code": "NotFound"}})
            return
        scheme, _, token = (req.headers.get("Authorization") or "").partition(" ")
        if scheme != "Bearer" or not self.issuer.accepts(token):
            self._record(method, conversation_id, activity_id, {}, 401)
            self._send(req, 401, {"error": {"code": "Unauthorized"}})
            return
        body = json.loads(raw or b"{}")
        scripted = self._take_script(method)
        if scripted is not None:
            self._record(method, conversation_id, activity_id, body, scripted.status)
            headers = {} if scripted.retry_after is None else \
                {"Retry-After": str(scripted.retry_after)}
            self._send(req, scripted.status, {"error": {"code": "Throttled"}}, headers)
            return
        if method == "POST":
            activity_id = self._create(conversation_id, body)
        elif activity_id not in self._messages:
            self._record(method, conversation_id, activity_id, body, 404)
            self._send(req, 404, {"error": {"code": "ActivityNotFound"}})
            return
        else:
            with self._cond:
                self._messages[activity_id] = {**body, "id": activity_id}
        self._record(method, conversation_id, activity_id, body, 200)
        self._send(req, 200 if method == "PUT" else 201, {"id": activity_id})

    def _open_chat(self, req: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        """``POST /v3/conversations``: the bot opens (or finds again) a 1:1 chat; its id is
        ``a:1on1-<member id>``, the same every time, as in Teams."""
        scheme, _, token = (req.headers.get("Authorization") or "").partition(" ")
        members = body.get("members") or []
        if scheme != "Bearer" or not self.issuer.accepts(token) or len(members) != 1 or \
                not body.get("tenantId"):
            self._send(req, 400 if members else 401, {"error": {"code": "BadArgument"}})
            return
        conversation_id = f"a:1on1-{members[0].get('id')}"
        self._record("POST", "", conversation_id, body, 200)
        self._send(req, 201, {"id": conversation_id})

    def _create(self, conversation_id: str, body: dict[str, Any]) -> str:
        stream = next((e for e in body.get("entities") or []
                       if e.get("type") == "streaminfo"), None)
        with self._cond:
            stream_id = (stream or {}).get("streamId")
            if stream_id and stream_id in self._messages:
                # a later stream update or the final message: the same message changes
                self._messages[stream_id] = {**body, "id": stream_id}
                return str(stream_id)
            activity_id = f"act-{next(self._ids)}"
            self._messages[activity_id] = {**body, "id": activity_id}
            self._order.append((conversation_id, activity_id))
            return activity_id

    def _take_script(self, method: str) -> _Script | None:
        with self._cond:
            for script in self._scripts:
                if script.remaining > 0 and script.method in (None, method):
                    script.remaining -= 1
                    return script
            return None

    def _record(self, method: str, conversation_id: str, activity_id: str | None,
                body: dict[str, Any], status: int) -> None:
        with self._cond:
            self._requests.append(Request(method, conversation_id, activity_id, body, status,
                                          time.monotonic()))
            self._cond.notify_all()

    @staticmethod
    def _send(req: BaseHTTPRequestHandler, status: int, body: dict[str, Any],
              headers: dict[str, str] | None = None) -> None:
        data = json.dumps(body).encode()
        req.send_response(status)
        req.send_header("Content-Type", "application/json")
        req.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            req.send_header(name, value)
        req.end_headers()
        req.wfile.write(data)
