"""What every surface needs to show a citation: its shape and whether its source may be a link."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol
from urllib.parse import urlsplit

_URL = re.compile(r"^https?://[^\s<>|]+$")


class CitationLike(Protocol):
    @property
    def n(self) -> int: ...
    @property
    def title(self) -> str: ...
    @property
    def source(self) -> str: ...


def kb_of(c: CitationLike) -> str:
    """The KB a citation came from when the conversation spans several (``agent.types.
    Citation.kb``), else "": every surface names it beside the title, ``Title (hr)``."""
    return str(getattr(c, "kb", "") or "")


def source_link(source: str, link_hosts: Sequence[str] = ()) -> str | None:
    """``source`` when it may be shown as a link: an https URL (any host) when
    ``link_hosts`` is empty, else an http(s) URL whose host is one of ``link_hosts``.
    None for anything else, a server file path above all (it tells readers where the
    bot's files live)."""
    if not _URL.match(source):
        return None
    parts = urlsplit(source)
    host = (parts.hostname or "").lower()
    if not host or parts.username or parts.password:
        return None
    if not link_hosts:
        return source if parts.scheme == "https" else None
    return source if host in {h.lower() for h in link_hosts} else None
