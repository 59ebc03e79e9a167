"""The Bot Connector REST client the Teams surface posts with (sync, like the rest of the
bot: worker processes and Bolt's listeners are threads, not an event loop).

Replies go to the ``serviceUrl`` of the activity that asked. Throttling (429), a lost
precondition (412) and gateway errors (502/504) are retried after ``Retry-After`` or a
growing backoff, but a message *create* is retried only when it surely failed: a 429 or
412 is refused before anything is written, as is a connection that never opened; after a
502/504 or a lost response the message may exist, and a second create would post the
answer twice. Edits are idempotent and retried on all of them.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import quote

import httpx
import structlog

log = structlog.get_logger("ragbot.teams.connector")

RETRYABLE = frozenset({429, 412, 502, 504})
# refused before the message was written: a create may be sent again
SURELY_FAILED = frozenset({429, 412})


class ConnectorError(Exception):
    """The connector refused a call (after any retries)."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class Tokens(Protocol):
    def token(self) -> str: ...
    def invalidate(self) -> None: ...


@dataclass(frozen=True)
class RetryPolicy:
    attempts: int = 5
    base_delay_s: float = 0.5
    max_delay_s: float = 30.0  # a longer Retry-After is cut to this


class Connector:
    """``create`` / ``update`` / ``delete`` of activities in a conversation."""

    def __init__(self, http: httpx.Client, tokens: Tokens, *,
                 retry: RetryPolicy | None = None,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self._http = http
        self._tokens = tokens
        self._retry = retry or RetryPolicy()
        self._sleep = sleep

    def create(self, service_url: str, conversation_id: str, activity: dict[str, Any]) -> str:
        """Post ``activity``; the new activity's id."""
        body = self._call("POST", _url(service_url, conversation_id), activity, create=True)
        return str(body.get("id") or "")

    def update(self, service_url: str, conversation_id: str, activity_id: str,
               activity: dict[str, Any]) -> None:
        """Replace the content of a message the bot posted."""
        self._call("PUT", _url(service_url, conversation_id, activity_id),
                   {**activity, "id": activity_id}, create=False)

    def open_personal_chat(self, service_url: str, *, bot_id: str, user: str,
                           tenant: str) -> str:
        """The id of the 1:1 chat between the bot and ``user`` (an Entra object id), which
        Teams opens or finds again (creating it twice yields the same chat)."""
        body = self._call("POST", f"{service_url.rstrip('/')}/v3/conversations", {
            "bot": {"id": bot_id}, "members": [{"id": user}], "isGroup": False,
            "tenantId": tenant, "channelData": {"tenant": {"id": tenant}}}, create=False)
        conversation = str(body.get("id") or "")
        if not conversation:
            raise ConnectorError("the connector opened no 1:1 chat")
        return conversation

    def _call(self, method: str, url: str, body: dict[str, Any], *,
              create: bool) -> dict[str, Any]:
        refreshed = False
        attempt = 0
        while True:
            attempt += 1
            headers = {"Authorization": f"Bearer {self._tokens.token()}"}
            try:
                response = self._http.request(method, url, json=body, headers=headers)
            except httpx.ConnectError as exc:  # nothing was sent: safe to send again
                if attempt >= self._retry.attempts:
                    raise ConnectorError(f"cannot reach the connector ({type(exc).__name__})"
                                         ) from exc
                self._wait(attempt, None, reason="connect_error")
                continue
            except httpx.HTTPError as exc:  # sent, answer lost: a create may have happened
                if create or attempt >= self._retry.attempts:
                    raise ConnectorError(f"connector call failed ({type(exc).__name__})"
                                         ) from exc
                self._wait(attempt, None, reason=type(exc).__name__)
                continue
            status = response.status_code
            if status == 401 and not refreshed:  # an expired or revoked token: refused
                refreshed = True
                self._tokens.invalidate()
                continue
            if 200 <= status < 300:
                return _json(response)
            retryable = status in (SURELY_FAILED if create else RETRYABLE)
            if not retryable or attempt >= self._retry.attempts:
                raise ConnectorError(f"the connector answered HTTP {status} to {method}",
                                     status=status)
            self._wait(attempt, response.headers.get("Retry-After"), reason=str(status))

    def _wait(self, attempt: int, retry_after: str | None, *, reason: str) -> None:
        delay = self._retry.base_delay_s * (2 ** (attempt - 1))
        if retry_after is not None:
            with contextlib.suppress(ValueError):  # an HTTP date: keep the backoff
                delay = float(retry_after)
        delay = min(max(delay, 0.0), self._retry.max_delay_s)
        log.info("teams_connector_retry", attempt=attempt, delay_s=delay, reason=reason)
        self._sleep(delay)


def _url(service_url: str, conversation_id: str, activity_id: str | None = None) -> str:
    base = f"{service_url.rstrip('/')}/v3/conversations/{quote(conversation_id, safe='')}" \
           "/activities"
    return f"{base}/{quote(activity_id, safe='')}" if activity_id else base


def _json(response: httpx.Response) -> dict[str, Any]:
    if not response.content:
        return {}
    try:
        body = response.json()
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}
