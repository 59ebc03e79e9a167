"""A local OpenAI-compatible chat-completions server with scripted replies.

It is a real HTTP server (stdlib ``http.server`` in a thread, bound to 127.0.0.1 port 0), so
the code under test goes through the real ``openai``/``langchain-openai`` client stack:
request serialization, HTTP status handling, timeouts and response parsing.

Replies come from a queue (``script``) or, when the queue is empty, from a function of the
request body (``respond_with``). A reply can be plain content, a JSON object (serialized as
the message content), malformed content, an HTTP error, or a delay past the client timeout.
Every request body is recorded in ``requests``. A request with ``"stream": true`` is
answered as server-sent events, the content in ``chunk_chars`` pieces ``chunk_delay_s``
apart, as a model writing its reply.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

PATHS = ("/v1/chat/completions", "/chat/completions")


@dataclass(frozen=True)
class Reply:
    """One scripted reply. ``content`` is the assistant message text (ignored on errors)."""

    content: str = ""
    status: int = 200
    delay_s: float = 0.0  # sleep before answering (past the client timeout to test timeouts)
    raw_body: str | None = None  # send this body verbatim instead of a completion object

    @classmethod
    def json(cls, obj: Any, **kw: Any) -> Reply:
        """The message content is ``obj`` serialized as JSON."""
        return cls(content=json.dumps(obj, ensure_ascii=False), **kw)

    @classmethod
    def error(cls, status: int = 500, message: str = "scripted failure") -> Reply:
        body = json.dumps({"error": {"message": message, "type": "server_error", "code": None}})
        return cls(status=status, raw_body=body)

    @classmethod
    def slow(cls, delay_s: float, content: str = "{}") -> Reply:
        return cls(content=content, delay_s=delay_s)


ScriptItem = Reply | str | dict[str, Any]
Responder = Callable[[dict[str, Any]], ScriptItem]


def _as_reply(item: ScriptItem) -> Reply:
    if isinstance(item, Reply):
        return item
    if isinstance(item, dict):
        return Reply.json(item)
    return Reply(content=item)


def chunk(content: str | None, model: str, *, finish: bool = False) -> dict[str, Any]:
    """One server-sent event of a streamed completion (``chat.completion.chunk``)."""
    delta: dict[str, Any] = {} if finish else {"role": "assistant", "content": content}
    return {"id": "chatcmpl-fake-stream", "object": "chat.completion.chunk",
            "created": int(time.time()), "model": model,
            "choices": [{"index": 0, "delta": delta, "logprobs": None,
                         "finish_reason": "stop" if finish else None}]}


def completion(content: str, model: str) -> dict[str, Any]:
    """The response object of ``POST /chat/completions`` (non-streaming)."""
    return {
        "id": f"chatcmpl-fake-{time.monotonic_ns()}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{
            "index": 0,
            "message": {"role": "assistant", "content": content, "refusal": None},
            "logprobs": None,
            "finish_reason": "stop",
        }],
        "usage": {"prompt_tokens": 10, "completion_tokens": max(1, len(content) // 4),
                  "total_tokens": 10 + max(1, len(content) // 4)},
    }


class FakeOpenAI:
    """The server's scripted behaviour and what it received."""

    def __init__(self) -> None:
        self._queue: deque[Reply] = deque()
        self._responder: Responder | None = None
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self.requests: list[dict[str, Any]] = []
        self.unscripted = 0  # requests that found neither a queued reply nor a responder
        self.chunk_chars = 24  # a streamed reply's piece size and the pause between pieces
        self.chunk_delay_s = 0.0
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True,
                                        name="fake-openai")

    @property
    def base_url(self) -> str:
        """What an OpenAI client takes as ``base_url`` (ends in ``/v1``)."""
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def script(self, *items: ScriptItem) -> None:
        """Queue replies, answered in order, one per request."""
        with self._lock:
            self._queue.extend(_as_reply(i) for i in items)

    def respond_with(self, fn: Responder | None) -> None:
        """Answer requests with ``fn(request_body)`` once the queue is empty."""
        self._responder = fn

    @property
    def pending(self) -> int:
        """Queued replies not yet used."""
        with self._lock:
            return len(self._queue)

    def messages(self, i: int = -1) -> list[dict[str, Any]]:
        """The ``messages`` of request ``i``."""
        return list(self.requests[i]["messages"])

    def start(self) -> FakeOpenAI:
        self._thread.start()
        return self

    def close(self) -> None:
        self._stop.set()  # wake handlers sleeping on a slow reply
        self._server.shutdown()
        self._server.server_close()

    def _next_reply(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            self.requests.append(body)
            if self._queue:
                return self._queue.popleft()
        if self._responder is not None:
            return _as_reply(self._responder(body))
        with self._lock:
            self.unscripted += 1
        return Reply.error(500, "no scripted reply left")

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                return  # keep pytest output clean

            def do_POST(self) -> None:
                if self.path.split("?")[0] not in PATHS:
                    self._send(404, json.dumps({"error": {"message": "not found"}}))
                    return
                length = int(self.headers.get("Content-Length") or 0)
                try:
                    body = json.loads(self.rfile.read(length) or b"{}")
                except json.JSONDecodeError:
                    self._send(400, json.dumps({"error": {"message": "bad json"}}))
                    return
                reply = fake._next_reply(body)
                if reply.delay_s and fake._stop.wait(reply.delay_s):
                    return
                if reply.raw_body is not None:
                    self._send(reply.status, reply.raw_body)
                elif body.get("stream") and reply.status == 200:
                    self._stream(reply.content, str(body.get("model", "fake-model")))
                else:
                    model = str(body.get("model", "fake-model"))
                    self._send(reply.status, json.dumps(completion(reply.content, model)))

            def _stream(self, content: str, model: str) -> None:
                step = max(1, fake.chunk_chars)
                events = [chunk(content[i:i + step], model) for i in range(0, len(content), step)]
                events.append(chunk(None, model, finish=True))
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "text/event-stream")
                    self.send_header("Connection", "close")
                    self.end_headers()
                    for i, event in enumerate(events):
                        if i and fake.chunk_delay_s and fake._stop.wait(fake.chunk_delay_s):
                            return
                        self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
                        self.wfile.flush()
                    self.wfile.write(b"data: [DONE]\n\n")
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    pass
                self.close_connection = True

            def _send(self, status: int, text: str) -> None:
                data = text.encode("utf-8")
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout): nothing to deliver

        return Handler


def serve() -> Iterator[FakeOpenAI]:
    """Run a fake server for the duration of a ``with``/fixture."""
    fake = FakeOpenAI().start()
    try:
        yield fake
    finally:
        fake.close()
