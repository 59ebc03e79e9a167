"""The progress bar long commands (ingest, reindex) show on a terminal."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from typing import Protocol


class ProgressUpdate(Protocol):
    def __call__(self, done: int, total: int | None, description: str | None = None) -> None: ...


@contextlib.contextmanager
def progress_bar(enabled: bool, label: str) -> Iterator[ProgressUpdate | None]:
    """A rich progress bar on stderr, only on a terminal (logs never get bar fragments)."""
    if not enabled or not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    with Progress("[progress.description]{task.description}", BarColumn(),
                  MofNCompleteColumn(), TimeRemainingColumn(),
                  console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(label, total=None)

        def update(done: int, total: int | None, description: str | None = None) -> None:
            bar.update(task, completed=done, total=total or None,
                       description=description or label)

        yield update
