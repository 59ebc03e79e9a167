"""Signed HTTP requests to the bot, as Slack sends them (X-Slack-Signature v0)."""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json
import time
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode


@dataclass(frozen=True)
class Delivery:
    status: int
    body: str
    elapsed_s: float


def sign(secret: str, timestamp: str, body: bytes) -> str:
    """The ``X-Slack-Signature`` value for ``body`` sent at ``timestamp``."""
    base = b"v0:" + timestamp.encode() + b":" + body
    return "v0=" + hmac.new(secret.encode(), base, hashlib.sha256).hexdigest()


@dataclass
class SlackSender:
    """Posts events, interactions and commands to the bot's ``/slack/events``."""

    url: str
    secret: str
    team_id: str = "T0001"
    api_app_id: str = "A0001"
    _seq: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    _ts: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    def next_ts(self) -> str:
        """A fresh message ts for a human message."""
        return f"{1_600_000_000 + next(self._ts)}.000200"

    def signed_headers(self, body: bytes, content_type: str, *,
                       timestamp: int | None = None,
                       signature: str | None = None) -> dict[str, str]:
        """The headers Slack sends with ``body``, signed now (or at ``timestamp``)."""
        ts = str(int(time.time()) if timestamp is None else timestamp)
        return {"Content-Type": content_type, "X-Slack-Request-Timestamp": ts,
                "X-Slack-Signature": signature or sign(self.secret, ts, body)}

    def post(self, body: bytes, content_type: str, *, timestamp: int | None = None,
             signature: str | None = None, headers: dict[str, str] | None = None) -> Delivery:
        req = urllib.request.Request(self.url, data=body, method="POST")  # noqa: S310
        signed = self.signed_headers(body, content_type, timestamp=timestamp,
                                     signature=signature)
        for key, value in {**signed, **(headers or {})}.items():
            req.add_header(key, value)
        start = time.perf_counter()
        try:
            with urllib.request.urlopen(req, timeout=10) as resp:  # noqa: S310 (http only)
                return Delivery(resp.status, resp.read().decode(), time.perf_counter() - start)
        except urllib.error.HTTPError as exc:
            return Delivery(exc.code, exc.read().decode(), time.perf_counter() - start)

    def event(self, event: dict[str, Any], *, event_id: str | None = None,
              retry_num: int | None = None, **kwargs: Any) -> Delivery:
        """Deliver an Events API ``event_callback`` wrapping ``event``."""
        headers = dict(kwargs.pop("headers", {}) or {})
        if retry_num is not None:
            headers["X-Slack-Retry-Num"] = str(retry_num)
            headers["X-Slack-Retry-Reason"] = "http_timeout"
        return self.post(self.envelope(event, event_id=event_id), "application/json",
                         headers=headers, **kwargs)

    def envelope(self, event: dict[str, Any], *, event_id: str | None = None) -> bytes:
        """The ``event_callback`` body Slack posts for ``event``."""
        payload = {
            "token": "legacy", "team_id": self.team_id, "api_app_id": self.api_app_id,
            "type": "event_callback", "event": event,
            # unique across senders and processes, as Slack's are
            "event_id": event_id or f"Ev{next(self._seq):04d}{uuid.uuid4().hex[:12].upper()}",
            "event_time": int(time.time()),
            "authorizations": [{"team_id": self.team_id, "user_id": "UBOT", "is_bot": True}],
        }
        return json.dumps(payload).encode()

    def interaction(self, payload: dict[str, Any], **kwargs: Any) -> Delivery:
        """Deliver an interactivity payload (button click) as a form field."""
        body = urlencode({"payload": json.dumps(payload)}).encode()
        return self.post(body, "application/x-www-form-urlencoded", **kwargs)

    def command(self, form: dict[str, str], **kwargs: Any) -> Delivery:
        body = urlencode({"team_id": self.team_id, **form}).encode()
        return self.post(body, "application/x-www-form-urlencoded", **kwargs)

    # ---------------------------------------------------------------- event shapes

    def mention(self, channel: str, text: str, *, user: str = "U1",
                ts: str | None = None, thread_ts: str | None = None) -> dict[str, Any]:
        event = {"type": "app_mention", "user": user, "text": text, "channel": channel,
                 "ts": ts or self.next_ts(), "team": self.team_id, "event_ts": "0"}
        if thread_ts:
            event["thread_ts"] = thread_ts
        event["event_ts"] = event["ts"]
        return event

    def message(self, channel: str, text: str, *, user: str = "U1",
                channel_type: str = "channel", ts: str | None = None,
                thread_ts: str | None = None, **extra: Any) -> dict[str, Any]:
        event = {"type": "message", "user": user, "text": text, "channel": channel,
                 "channel_type": channel_type, "ts": ts or self.next_ts(),
                 "team": self.team_id, **extra}
        if thread_ts:
            event["thread_ts"] = thread_ts
        event["event_ts"] = event["ts"]
        return event
