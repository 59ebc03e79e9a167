"""Secrets masked out of text and structured values, for every log line and stored trace.

A secret can reach a log or a trace by many roads (an exception message, a URL in a
library's debug line, a token a user pastes into a question), so masking goes by the shape
of the secret, not by where it came from: Slack tokens, bearer/basic credentials, JSON Web
Tokens, API keys, ``key=value`` pairs with a secret-sounding key, and the password part of
a URL.

Every pattern starts from a literal or a word boundary and has no nested repetition, so
masking stays linear in the length of the text (a log line can hold a whole traceback).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

MASK = "[REDACTED]"

# Keys whose value is a secret whatever it looks like (structlog key/values, JSON, dicts).
SECRET_KEYS = frozenset({
    "token", "password", "passwd", "secret", "api_key", "apikey", "authorization",
    "signing_secret", "client_secret", "access_token", "refresh_token", "bot_token",
    "app_token", "slack_bot_token", "slack_app_token", "slack_signing_secret",
    "llm_api_key", "x-api-key",
})

_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    # key=value / "key": "value" pairs with a secret key (api_key=…, password=… in a
    # libpq conninfo, "token": "…" in JSON); first, so the whole value goes at once.
    (re.compile(
        r"\b(api[_-]?key|access[_-]?token|refresh[_-]?token|client[_-]?secret|"
        r"signing[_-]?secret|token|password|passwd|secret)"
        r"""(["']?\s*[:=]\s*["']?)(?!\[REDACTED\])[^\s"'&,;}\]]+""",
        re.IGNORECASE), r"\1\2" + MASK),
    # Slack bot/user/app/config tokens (xoxb-, xoxp-, xoxa-, xoxe.xoxp-, xapp-…).
    (re.compile(r"\b(xox[a-z](?:\.xox[a-z])?|xapp)-[0-9A-Za-z-]+"), r"\1-" + MASK),
    # Authorization headers ("Authorization: Bearer <token>", "Basic <base64>") and a
    # bearer token on its own (Teams/Azure JWTs, OpenAI): a capitalised "Bearer" and a
    # long token, so prose ("the basic steps") is left alone.
    (re.compile(r"""(authorization["']?\s*[:=]\s*["']?(?:bearer|basic|token)?\s*)"""
                r"[A-Za-z0-9._~+/=-]+", re.IGNORECASE), r"\1" + MASK),
    (re.compile(r"\bBearer\s+(?!\[REDACTED\])[A-Za-z0-9._~+/=-]{16,}"), "Bearer " + MASK),
    # A JSON Web Token on its own (a Teams/Entra access token pasted or echoed without a
    # "Bearer"): header and payload are base64url JSON objects, so both start "eyJ".
    (re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*"), MASK),
    # OpenAI-style API keys (sk-…, sk-proj-…, sk-ant-…).
    (re.compile(r"\bsk-[A-Za-z0-9_-]{8,}"), "sk-" + MASK),
    # The password in a URL: scheme://user:password@host.
    (re.compile(r"://([^:/?#@\s]*):[^@\s/?#]+@"), r"://\1:" + MASK + "@"),
)

_PLAIN = (int, float, bool, type(None))


def redact_text(text: str) -> str:
    """``text`` with every secret-shaped part replaced by ``[REDACTED]``."""
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
    return text


def redact_value(value: Any) -> Any:
    """A copy of ``value`` (str, mapping, list, tuple or any object) with secrets masked.

    Mapping entries under a secret key (``password``, ``token``…) are masked whole; other
    objects are masked through their ``repr`` only when it holds a secret, so ordinary
    values keep their type and rendering.
    """
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, _PLAIN):
        return value
    if isinstance(value, Mapping):
        return {k: (MASK if _is_secret_key(k) and _is_set(v) else redact_value(v))
                for k, v in value.items()}
    if isinstance(value, list | tuple):
        items = [redact_value(v) for v in value]
        return items if isinstance(value, list) else tuple(items)
    shown = repr(value)
    masked = redact_text(shown)
    return value if masked == shown else masked


def _is_set(value: object) -> bool:
    return value is not None and not (isinstance(value, str) and not value)


def _is_secret_key(key: object) -> bool:
    return isinstance(key, str) and key.lower() in SECRET_KEYS


def redact_event(_logger: Any, _method: str, event_dict: Any) -> Any:
    """structlog processor: mask secrets in every value of the event (event text, key/values,
    nested dicts and lists, rendered exception); place it last before the renderer."""
    return redact_value(event_dict)
