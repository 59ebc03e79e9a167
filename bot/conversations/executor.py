"""A bounded thread pool that runs each task in a copy of the submitter's context.

Bolt's default pool does not copy ``contextvars``, so structlog's bound request context
(trace id, thread) would be lost in listeners; this one carries it over.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")


class ContextThreadPoolExecutor(ThreadPoolExecutor):
    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        ctx = contextvars.copy_context()
        return super().submit(ctx.run, fn, *args, **kwargs)
