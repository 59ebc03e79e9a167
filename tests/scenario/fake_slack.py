"""A real HTTP fake of the Slack Web API, for driving the bot end to end.

It binds 127.0.0.1 on port 0, speaks the wire format ``slack_sdk.WebClient`` uses
(POST or GET ``/api/<method>``, form-encoded or JSON bodies, ``Authorization: Bearer``),
records every call with its parsed body and arrival time, and can be scripted to answer a
method with HTTP 429 + ``Retry-After`` a given number of times.

Behaviour follows Slack's documented responses closely enough that the bot's error paths
are real: ``chat.update`` of an unknown message is ``message_not_found``, an unknown channel
is ``channel_not_found``, a missing token is ``not_authed``.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from tests.fakes.local_http import LocalServer

# Form fields that slack_sdk serializes as JSON strings.
_JSON_FIELDS = ("blocks", "attachments", "view", "metadata")


@dataclass(frozen=True)
class Call:
    """One request the fake received."""

    method: str
    body: dict[str, Any]
    token: str | None
    at: float  # time.monotonic() on arrival
    status: int  # HTTP status answered


@dataclass
class ChannelInfo:
    """What ``conversations.info`` answers for a channel the test configured."""

    id: str
    name: str = ""
    is_private: bool = False
    is_im: bool = False
    is_mpim: bool = False
    is_ext_shared: bool = False
    is_shared: bool = False
    user: str | None = None  # the other party of an IM

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": self.id,
            "name": self.name or self.id.lower(),
            "is_channel": not (self.is_im or self.is_mpim or self.is_private),
            "is_group": self.is_private and not self.is_mpim,
            "is_im": self.is_im,
            "is_mpim": self.is_mpim,
            "is_private": self.is_private or self.is_im or self.is_mpim,
            "is_ext_shared": self.is_ext_shared,
            "is_shared": self.is_shared or self.is_ext_shared,
            "is_org_shared": False,
        }
        if self.user:
            data["user"] = self.user
        return data


@dataclass
class _Script:
    remaining: int
    status: int
    retry_after: int
    error: str


@dataclass
class FakeSlack:
    """The fake server. Use as a context manager or call ``start()``/``stop()``."""

    team_id: str = "T0001"
    bot_user_id: str = "UBOT"
    bot_id: str = "BBOT"
    channels: dict[str, ChannelInfo] = field(default_factory=dict)
    users: dict[str, dict[str, Any]] = field(default_factory=dict)
    usergroups: dict[str, list[str]] = field(default_factory=dict)  # id -> member ids
    # optional per-call latency, to model a slow Slack in benchmarks
    latency_s: float = 0.0

    def __post_init__(self) -> None:
        self._calls: list[Call] = []
        self._cond = threading.Condition()
        self._scripts: dict[str, list[_Script]] = {}
        self._messages: dict[tuple[str, str], dict[str, Any]] = {}
        self._ts = itertools.count(1)
        self._server = LocalServer({"POST": self._handle, "GET": self._handle}, "fake-slack")
        self._handlers: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
            "auth.test": self._auth_test,
            "chat.postMessage": self._post_message,
            "chat.update": self._update,
            "chat.delete": self._delete,
            "chat.startStream": self._start_stream,
            "chat.appendStream": self._append_stream,
            "chat.stopStream": self._stop_stream,
            "chat.postEphemeral": self._post_ephemeral,
            "conversations.info": self._conversations_info,
            "users.info": self._users_info,
            "usergroups.users.list": self._usergroup_users,
            "views.open": self._view,
            "views.update": self._view,
            "views.push": self._view,
            "views.publish": self._view,
        }

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> FakeSlack:
        self._server.start()
        return self

    def stop(self) -> None:
        self._server.stop()

    def __enter__(self) -> FakeSlack:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        """The Web API base URL (what ``SLACK_API_URL`` is set to)."""
        return f"http://127.0.0.1:{self._server.port('FakeSlack')}/api/"

    # ------------------------------------------------------------------ scripting

    def add_channel(self, channel_id: str, **kwargs: Any) -> ChannelInfo:
        info = ChannelInfo(id=channel_id, **kwargs)
        self.channels[channel_id] = info
        return info

    def answer(self, method: str, handler: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
        """Answer ``method`` with ``handler(body)`` (a Slack JSON response) from now on."""
        with self._cond:
            self._handlers[method] = handler

    def rate_limit(self, method: str, times: int = 1, retry_after: int = 1) -> None:
        """Answer the next ``times`` calls of ``method`` with 429 and ``Retry-After``."""
        self._script(method, _Script(times, 429, retry_after, "ratelimited"))

    def fail(self, method: str, times: int = 1, error: str = "internal_error") -> None:
        """Answer the next ``times`` calls of ``method`` with ``ok: false``."""
        self._script(method, _Script(times, 200, 0, error))

    def _script(self, method: str, script: _Script) -> None:
        with self._cond:
            self._scripts.setdefault(method, []).append(script)

    # ------------------------------------------------------------------ inspection

    def calls(self, method: str | None = None) -> list[Call]:
        """Recorded calls (answered 2xx or not), optionally of one method, in order."""
        with self._cond:
            return [c for c in self._calls if method is None or c.method == method]

    def ok_calls(self, method: str) -> list[Call]:
        return [c for c in self.calls(method) if c.status == 200]

    def wait_for(self, predicate: Callable[[FakeSlack], Any], timeout: float = 10.0) -> Any:
        """Block until ``predicate(self)`` is truthy (re-checked on each call); return it."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                value = predicate(self)
                if value:
                    return value
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"fake Slack: condition not met in {timeout}s; "
                                       f"calls: {[c.method for c in self._calls]}")
                self._cond.wait(left)

    def message(self, channel: str, ts: str) -> dict[str, Any] | None:
        """The current state of a message the bot posted (after any updates)."""
        with self._cond:
            msg = self._messages.get((channel, ts))
            return dict(msg) if msg else None

    def messages(self, channel: str | None = None) -> Iterator[dict[str, Any]]:
        with self._cond:
            items = [dict(m) for (c, _), m in self._messages.items()
                     if channel is None or c == channel]
        yield from items

    def reset_calls(self) -> None:
        with self._cond:
            self._calls.clear()

    # ------------------------------------------------------------------ HTTP

    def _handle(self, req: BaseHTTPRequestHandler) -> None:
        arrived = time.monotonic()
        parts = urlsplit(req.path)
        method = parts.path.rsplit("/", 1)[-1]
        length = int(req.headers.get("Content-Length") or 0)
        raw = req.rfile.read(length) if length else b""
        body = _parse_body(raw, req.headers.get("Content-Type", ""), parts.query)
        auth = req.headers.get("Authorization", "")
        token = auth[len("Bearer "):] if auth.startswith("Bearer ") else body.get("token")
        if self.latency_s:
            time.sleep(self.latency_s)

        status, headers, payload = self._answer(method, body, token)
        with self._cond:
            self._calls.append(Call(method, body, token, arrived, status))
            self._cond.notify_all()
        data = json.dumps(payload).encode()
        req.send_response(status)
        req.send_header("Content-Type", "application/json; charset=utf-8")
        req.send_header("Content-Length", str(len(data)))
        for key, value in headers.items():
            req.send_header(key, value)
        req.end_headers()
        req.wfile.write(data)

    def _answer(self, method: str, body: dict[str, Any],
                token: str | None) -> tuple[int, dict[str, str], dict[str, Any]]:
        with self._cond:
            scripts = self._scripts.get(method) or []
            if scripts:
                script = scripts[0]
                script.remaining -= 1
                if script.remaining <= 0:
                    scripts.pop(0)
                headers = {"Retry-After": str(script.retry_after)} if script.status == 429 else {}
                return script.status, headers, {"ok": False, "error": script.error}
        if not token:
            return 200, {}, {"ok": False, "error": "not_authed"}
        handler = self._handlers.get(method)
        if handler is None:  # any other method: accepted and recorded
            return 200, {}, {"ok": True}
        return 200, {}, handler(body)

    # ------------------------------------------------------------------ methods

    def _next_ts(self) -> str:
        return f"{1_700_000_000 + next(self._ts)}.000100"

    def _auth_test(self, body: dict[str, Any]) -> dict[str, Any]:
        return {"ok": True, "url": "https://acme.slack.com/", "team": "Acme",
                "user": "ragbot", "team_id": self.team_id, "user_id": self.bot_user_id,
                "bot_id": self.bot_id, "is_enterprise_install": False}

    def _post_message(self, body: dict[str, Any]) -> dict[str, Any]:
        channel = str(body.get("channel") or "")
        if not channel:
            return {"ok": False, "error": "channel_not_found"}
        if not body.get("text") and not body.get("blocks"):
            return {"ok": False, "error": "no_text"}
        ts = self._next_ts()
        msg = {"type": "message", "channel": channel, "ts": ts, "user": self.bot_user_id,
               "bot_id": self.bot_id, "text": body.get("text", ""),
               "blocks": body.get("blocks") or [], "thread_ts": body.get("thread_ts"),
               "updates": 0}
        with self._cond:
            self._messages[(channel, ts)] = msg
        return {"ok": True, "channel": channel, "ts": ts, "message": msg}

    def _update(self, body: dict[str, Any]) -> dict[str, Any]:
        key = (str(body.get("channel") or ""), str(body.get("ts") or ""))
        with self._cond:
            msg = self._messages.get(key)
            if msg is None:
                return {"ok": False, "error": "message_not_found"}
            msg["text"] = body.get("text", msg["text"])
            if "blocks" in body:
                msg["blocks"] = body.get("blocks") or []
            msg["updates"] += 1
        return {"ok": True, "channel": key[0], "ts": key[1], "text": msg["text"]}

    def _delete(self, body: dict[str, Any]) -> dict[str, Any]:
        key = (str(body.get("channel") or ""), str(body.get("ts") or ""))
        with self._cond:
            if self._messages.pop(key, None) is None:
                return {"ok": False, "error": "message_not_found"}
        return {"ok": True, "channel": key[0], "ts": key[1]}

    def _start_stream(self, body: dict[str, Any]) -> dict[str, Any]:
        """A streaming message: only in a thread; outside a DM it names its recipient."""
        channel = str(body.get("channel") or "")
        if not channel:
            return {"ok": False, "error": "channel_not_found"}
        if not body.get("thread_ts"):
            return {"ok": False, "error": "invalid_arguments"}
        if not channel.startswith("D") and not (body.get("recipient_user_id")
                                                and body.get("recipient_team_id")):
            return {"ok": False, "error": "missing_recipient_user_id"}
        ts = self._next_ts()
        msg = {"type": "message", "channel": channel, "ts": ts, "user": self.bot_user_id,
               "bot_id": self.bot_id, "text": body.get("markdown_text") or "", "blocks": [],
               "thread_ts": body.get("thread_ts"), "updates": 0, "streaming": True}
        with self._cond:
            self._messages[(channel, ts)] = msg
        return {"ok": True, "channel": channel, "ts": ts}

    def _append_stream(self, body: dict[str, Any]) -> dict[str, Any]:
        return self._extend_stream(body, stop=False)

    def _stop_stream(self, body: dict[str, Any]) -> dict[str, Any]:
        return self._extend_stream(body, stop=True)

    def _extend_stream(self, body: dict[str, Any], *, stop: bool) -> dict[str, Any]:
        """chat.appendStream / chat.stopStream: add the markdown to a streaming message."""
        key = (str(body.get("channel") or ""), str(body.get("ts") or ""))
        with self._cond:
            msg = self._messages.get(key)
            if msg is None:
                return {"ok": False, "error": "message_not_found"}
            if not msg.get("streaming"):
                return {"ok": False, "error": "message_not_in_streaming_state"}
            msg["text"] += body.get("markdown_text") or ""
            msg["streaming"] = not stop
            done = dict(msg)
        return {"ok": True, "channel": key[0], "ts": key[1], **({"message": done} if stop else {})}

    def _post_ephemeral(self, body: dict[str, Any]) -> dict[str, Any]:
        if not body.get("user"):
            return {"ok": False, "error": "user_not_in_channel"}
        return {"ok": True, "message_ts": self._next_ts()}

    def _conversations_info(self, body: dict[str, Any]) -> dict[str, Any]:
        info = self.channels.get(str(body.get("channel") or ""))
        if info is None:
            return {"ok": False, "error": "channel_not_found"}
        return {"ok": True, "channel": info.to_json()}

    def _users_info(self, body: dict[str, Any]) -> dict[str, Any]:
        user_id = str(body.get("user") or "")
        user = self.users.get(user_id)
        if user is None:
            if not user_id.startswith("U") and not user_id.startswith("W"):
                return {"ok": False, "error": "user_not_found"}
            user = {"id": user_id, "name": user_id.lower(), "is_bot": False,
                    "tz": "UTC", "profile": {"real_name": user_id}}
        return {"ok": True, "user": user}

    def _usergroup_users(self, body: dict[str, Any]) -> dict[str, Any]:
        members = self.usergroups.get(str(body.get("usergroup") or ""))
        if members is None:
            return {"ok": False, "error": "no_such_subteam"}
        return {"ok": True, "users": list(members)}

    def _view(self, body: dict[str, Any]) -> dict[str, Any]:
        view = body.get("view") or {}
        return {"ok": True, "view": {"id": f"V{next(self._ts)}", **view}}


def _parse_body(raw: bytes, content_type: str, query: str) -> dict[str, Any]:
    body: dict[str, Any] = dict(parse_qsl(query))
    if raw:
        if "application/json" in content_type:
            body.update(json.loads(raw.decode("utf-8")))
        else:
            body.update(parse_qsl(raw.decode("utf-8"), keep_blank_values=True))
    for key in _JSON_FIELDS:
        value = body.get(key)
        if isinstance(value, str) and value[:1] in "[{":
            body[key] = json.loads(value)
    return body
