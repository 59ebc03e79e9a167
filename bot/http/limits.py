"""Request limits that uvicorn does not have: a body size cap and a body read deadline.

Every route here takes a small body (a Slack payload is a few KB), so the middleware reads
the whole body before the app sees the request: a body declared too large gets 413 before
a byte of it is read; a chunked one is counted as it arrives and cut off with 413 past the
cap; a body not complete within the deadline (a slow or stalled client) gets 408. Either
way the connection is closed and no application code, signature check included, ran.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from typing import Any

import structlog

Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[MutableMapping[str, Any], Receive, Send], Awaitable[None]]

log = structlog.get_logger("ragbot.http")


@dataclass(frozen=True)
class Limits:
    max_body_bytes: int = 1024 * 1024
    read_timeout_s: float = 10.0


class _Refused(Exception):
    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


class RequestLimits:
    """ASGI middleware enforcing ``limits`` on every HTTP request's body."""

    def __init__(self, app: ASGIApp, limits: Limits) -> None:
        self.app = app
        self.limits = limits

    async def __call__(self, scope: MutableMapping[str, Any], receive: Receive,
                       send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        try:
            self._check_declared(scope)
            body = await asyncio.wait_for(self._read(receive), self.limits.read_timeout_s)
        except _Refused as refused:
            await self._refuse(scope, send, refused.status, refused.reason)
            return
        except TimeoutError:
            await self._refuse(scope, send, 408, "body_read_timeout")
            return
        await self.app(scope, _replay(body, receive), send)

    def _check_declared(self, scope: MutableMapping[str, Any]) -> None:
        for name, value in scope["headers"]:
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    raise _Refused(400, "bad_content_length") from None
                if declared > self.limits.max_body_bytes:
                    raise _Refused(413, "body_too_large")

    async def _read(self, receive: Receive) -> bytes:
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                raise _Refused(400, "client_disconnected")
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.limits.max_body_bytes:  # chunked: no length declared up front
                raise _Refused(413, "body_too_large")
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)

    async def _refuse(self, scope: MutableMapping[str, Any], send: Send, status: int,
                      reason: str) -> None:
        log.warning("http_request_refused", status=status, reason=reason,
                    path=scope.get("path"), limit_bytes=self.limits.max_body_bytes,
                    timeout_s=self.limits.read_timeout_s)
        body = reason.encode()
        # "connection: close": the rest of the body is never read, so the connection
        # cannot carry another request
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"text/plain"),
                                (b"content-length", str(len(body)).encode()),
                                (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": body})


def _replay(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that hands the app the body already read, then passes through (a
    streaming response listens on it for the client's disconnect)."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay
