"""A real websocket fake of Slack's Socket Mode endpoint, for driving the bot end to end.

Slack's side of Socket Mode, as documented (docs.slack.dev/apis/events-api/using-socket-mode):
the app calls ``apps.connections.open`` with its app-level token and gets a ``wss://`` URL;
on connecting, the server sends ``{"type": "hello", ...}``; each event then arrives as an
envelope ``{"envelope_id", "type": "events_api", "payload": <event_callback>,
"accepts_response_payload", "retry_attempt", "retry_reason"}`` and the app acknowledges it
by sending ``{"envelope_id": ...}`` back on the socket.

This fake binds 127.0.0.1 on port 0 (plain ``ws://``), hands its URL out through a
:class:`~tests.scenario.fake_slack.FakeSlack` Web API, and records every message the app
sends, so a test can wait for the acknowledgement of one envelope.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from websockets.exceptions import ConnectionClosed
from websockets.sync.server import Server, ServerConnection, serve

from tests.scenario.fake_slack import FakeSlack

T = TypeVar("T")


@dataclass
class FakeSocketMode:
    """The fake endpoint. Use as a context manager or call ``start()``/``stop()``."""

    app_id: str = "A0001"
    received: list[dict[str, Any]] = field(default_factory=list)  # app -> Slack, parsed

    def __post_init__(self) -> None:
        self._cond = threading.Condition()
        self._connections: list[ServerConnection] = []
        self._server: Server | None = None
        self._ticket = itertools.count(1)

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> FakeSocketMode:
        self._server = serve(self._handle, "127.0.0.1", 0, compression=None)
        threading.Thread(target=self._server.serve_forever, daemon=True,
                         name="fake-socket-mode").start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server = None

    def __enter__(self) -> FakeSocketMode:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def attach(self, web_api: FakeSlack) -> None:
        """Answer ``apps.connections.open`` on ``web_api`` with this endpoint's URL."""
        web_api.answer("apps.connections.open", self._connections_open)

    def _connections_open(self, body: dict[str, Any]) -> dict[str, Any]:
        assert self._server is not None, "FakeSocketMode is not started"
        port = self._server.socket.getsockname()[1]
        # Slack's URLs carry a one-time ticket and the app id; the client must use them as given
        url = f"ws://127.0.0.1:{port}/link/?ticket={next(self._ticket)}&app_id={self.app_id}"
        return {"ok": True, "url": url}

    # ------------------------------------------------------------------ websocket

    def _handle(self, conn: ServerConnection) -> None:
        conn.send(json.dumps({
            "type": "hello", "num_connections": 1,
            "debug_info": {"host": "fake-socket-mode", "approximate_connection_time": 18060},
            "connection_info": {"app_id": self.app_id},
        }))
        with self._cond:
            self._connections.append(conn)
            self._cond.notify_all()
        try:
            for raw in conn:
                message = json.loads(raw)
                with self._cond:
                    self.received.append(message)
                    self._cond.notify_all()
        except ConnectionClosed:
            pass
        finally:
            with self._cond:
                self._connections.remove(conn)
                self._cond.notify_all()

    def wait_connected(self, timeout: float = 10.0) -> None:
        """Block until the app holds an open connection."""
        self._wait(lambda: self._connections, timeout, "no Socket Mode connection")

    def send_event(self, payload: dict[str, Any], *, retry_attempt: int = 0,
                   retry_reason: str = "") -> str:
        """Deliver an Events API ``event_callback`` envelope; return its envelope id."""
        envelope_id = str(uuid.uuid4())
        envelope = {"envelope_id": envelope_id, "type": "events_api", "payload": payload,
                    "accepts_response_payload": False, "retry_attempt": retry_attempt,
                    "retry_reason": retry_reason}
        with self._cond:
            conn = self._connections[-1]
        conn.send(json.dumps(envelope))
        return envelope_id

    def wait_ack(self, envelope_id: str, timeout: float = 10.0) -> dict[str, Any]:
        """Block until the app acknowledged ``envelope_id``; return the acknowledgement."""
        def ack() -> dict[str, Any] | None:
            return next((m for m in self.received if m.get("envelope_id") == envelope_id),
                        None)

        return self._wait(ack, timeout, f"envelope {envelope_id} not acknowledged")

    def _wait(self, fn: Callable[[], T | None], timeout: float, what: str) -> T:
        deadline = time.monotonic() + timeout
        with self._cond:
            while not (value := fn()):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"fake Socket Mode: {what} in {timeout}s")
                self._cond.wait(left)
            return value


def event_callback(event: dict[str, Any], *, team_id: str, event_id: str,
                   api_app_id: str = "A0001") -> dict[str, Any]:
    """The ``event_callback`` body Slack wraps an event in (same as over HTTP)."""
    return {"token": "legacy", "team_id": team_id, "api_app_id": api_app_id,
            "type": "event_callback", "event": event, "event_id": event_id,
            "event_time": int(time.time()),
            "authorizations": [{"team_id": team_id, "user_id": "UBOT", "is_bot": True}]}
