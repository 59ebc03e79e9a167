"""What kind of conversation a channel is (public, private, DM, externally shared), from
``conversations.info``, cached per process for a few minutes."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

import structlog
from slack_sdk.errors import SlackApiError

from bot.slack.translate import kind_from_info
from store.access import groups_in_acls

if TYPE_CHECKING:
    from psycopg_pool import ConnectionPool

    from bot.conversations.model import ConversationKind

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
    """No user-group memberships known."""
    return ()


class GroupClient(Protocol):
    def usergroups_users_list(self, *, usergroup: str) -> Any: ...


class GroupDirectory:
    """The user groups an asker belongs to, among those the KB's access lists name
    (``group:<id>``). Memberships come from ``usergroups.users.list`` (scope
    ``usergroups:read``), cached for ``ttl_s``; a group Slack will not list counts as
    one the asker is not in."""

    def __init__(self, client: GroupClient, pool: ConnectionPool, *, ttl_s: float = 300.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._client = client
        self._pool = pool
        self._ttl = ttl_s
        self._clock = clock
        self._lock = threading.Lock()
        self._named: tuple[float, tuple[str, ...]] | None = None
        self._members: dict[str, tuple[float, frozenset[str]]] = {}

    def __call__(self, user: str) -> tuple[str, ...]:
        return tuple(g for g in self._groups_in_acls() if user in self._members_of(g))

    def _groups_in_acls(self) -> tuple[str, ...]:
        now = self._clock()
        with self._lock:
            if self._named and now - self._named[0] < self._ttl:
                return self._named[1]
        with self._pool.connection() as conn:
            named = groups_in_acls(conn)
        with self._lock:
            self._named = (now, named)
        return named

    def _members_of(self, group: str) -> frozenset[str]:
        now = self._clock()
        with self._lock:
            hit = self._members.get(group)
            if hit and now - hit[0] < self._ttl:
                return hit[1]
        try:
            users = frozenset(self._client.usergroups_users_list(usergroup=group)["users"])
        except (SlackApiError, KeyError, TypeError) as exc:
            error = exc.response.get("error") if isinstance(exc, SlackApiError) else "bad_reply"
            log.info("group_lookup_failed", group=group, error=error)
            users = frozenset()
        with self._lock:
            self._members[group] = (now, users)
        return users
