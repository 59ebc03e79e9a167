"""Run a call under a wall-clock limit that interrupts it, for tests of slow input.

A regex that backtracks can run for minutes; waiting for it to finish before failing would
stall the suite. ``SIGALRM`` interrupts it (CPython's regex engine checks for signals), so a
regression fails in the time it was allowed. Main thread only, as signals are.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

T = TypeVar("T")


class TooSlowError(AssertionError):
    pass


@contextmanager
def time_limit(seconds: float, what: str) -> Iterator[None]:
    """Fail with ``TooSlowError`` if the block runs longer than ``seconds``."""
    def expired(_signum: int, _frame: Any) -> None:
        raise TooSlowError(f"{what} took longer than {seconds:.2f}s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def timed(seconds: float, fn: Callable[[str], T], text: str) -> T:
    """``fn(text)``, failing if it takes longer than ``seconds``."""
    started = time.perf_counter()
    with time_limit(seconds, f"{getattr(fn, '__name__', 'call')} on {text[:24]!r}… "
                             f"({len(text)} chars)"):
        result = fn(text)
    assert time.perf_counter() - started < seconds
    return result
