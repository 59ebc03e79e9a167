"""What kind of conversation a channel is (public, private, DM, externally shared), from
``conversations.info``, cached per process for a few minutes."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

import structlog
from slack_sdk.errors import SlackApiError

from bot.slack.translate import ConversationKind, kind_from_info

log = structlog.get_logger("ragbot.slack.access")


class InfoClient(Protocol):
    def conversations_info(self, *, channel: str) -> Any: ...


class ChannelDirectory:
    """Looks channels up once per ``ttl_s``. A lookup that fails counts as a public
    channel (public documents only): an unknown audience never sees restricted text."""

    def __init__(self, client: InfoClient, *, ttl_s: float = 300.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._client = client
        self._ttl = ttl_s
        self._clock = clock
        self._lock = threading.Lock()
        self._cache: dict[str, tuple[float, ConversationKind]] = {}

    def kind(self, channel: str) -> ConversationKind:
        now = self._clock()
        with self._lock:
            hit = self._cache.get(channel)
            if hit and now - hit[0] < self._ttl:
                return hit[1]
        try:
            info = self._client.conversations_info(channel=channel)["channel"]
        except (SlackApiError, KeyError, TypeError) as exc:
            error = exc.response.get("error") if isinstance(exc, SlackApiError) else "bad_reply"
            log.warning("channel_lookup_failed", channel=channel, error=error)
            return "public"
        kind = kind_from_info(info)
        with self._lock:
            self._cache[channel] = (now, kind)
        return kind


def no_groups(user: str) -> tuple[str, ...]:
    """Default group lookup: no user-group memberships known (needs usergroups:read)."""
    return ()
