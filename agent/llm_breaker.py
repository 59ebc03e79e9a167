"""A circuit breaker for the chat model: stop waiting on an endpoint that is down.

Without it, an unreachable or hanging endpoint costs every step of every turn two client
timeouts before the offline rule answers. After ``threshold`` consecutive failures that say
the endpoint is unusable (timeouts, connection errors, 5xx, 429, and 401/403/404 from a wrong
key, model or URL) calls are skipped for ``cooldown_s``; the first call after that is a trial
that closes the breaker on success or reopens it on failure.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import openai


class CircuitOpenError(RuntimeError):
    """The model is treated as down for a while; the step uses its offline rule."""

    def __init__(self) -> None:
        super().__init__("circuit_open")


# Wrong key, no access, unknown model or path: no retry a second later will fix these.
_UNUSABLE = frozenset({401, 403, 404, 429})


def is_transport_failure(exc: BaseException) -> bool:
    """Failures that say the endpoint is unavailable, not that the reply was bad."""
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code >= 500 or exc.status_code in _UNUSABLE
    return isinstance(exc, openai.APIConnectionError)  # includes APITimeoutError


class CircuitBreaker:
    """Thread-safe: steps of one turn may call the model concurrently."""

    def __init__(self, *, threshold: int = 2, cooldown_s: float = 30.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._threshold = threshold
        self._cooldown_s = cooldown_s
        self._clock = clock
        self._lock = threading.Lock()
        self._failures = 0
        self._open_until: float | None = None

    @property
    def is_open(self) -> bool:
        with self._lock:
            return self._open_until is not None and self._clock() < self._open_until

    def check(self) -> None:
        """Raise ``CircuitOpenError`` while the cooldown runs."""
        if self.is_open:
            raise CircuitOpenError

    def record(self, exc: BaseException | None) -> None:
        """The outcome of one call: ``None`` when the endpoint answered."""
        with self._lock:
            if exc is None or not is_transport_failure(exc):
                self._failures = 0
                self._open_until = None
                return
            self._failures += 1
            if self._failures >= self._threshold:
                self._open_until = self._clock() + self._cooldown_s
