"""Log lines and the terminal progress bar share stderr without overwriting each other."""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator

import pytest
import structlog
from rich.console import Console
from rich.progress import Progress

from bot.logging_setup import configure_logging


@pytest.fixture
def restore_logging() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level, config = root.handlers[:], root.level, structlog.get_config()
    yield
    root.handlers[:] = handlers
    root.setLevel(level)
    structlog.configure(**config)


@pytest.mark.usefixtures("restore_logging")
def test_a_log_line_during_the_progress_bar_is_printed_above_it() -> None:
    configure_logging("INFO", "json")
    screen = io.StringIO()
    console = Console(file=screen, force_terminal=True, width=100)
    with Progress(console=console, transient=True) as bar:
        bar.add_task("ingesting", total=10)
        # the bar redirects stderr while it is drawn; the handler must write there
        structlog.get_logger("ragbot.test_bar").info("ingest_done", kb="handbook")
    assert '"event": "ingest_done"' in screen.getvalue()
