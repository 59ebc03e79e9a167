"""Background jobs on a Postgres-backed queue (procrastinate), in the bot's own database.

Jobs survive restarts and any replica's worker can run them. Two procrastinate apps share
the tables: a sync one that only defers (used from Bolt's listener threads, on the bot's
sync pool) and the worker's async one, whose event loop runs in a thread of ``ragbot
serve`` (or in ``ragbot worker``). Separate apps because procrastinate's async pool is bound
to the worker's loop and cannot be used from other threads.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, is_dataclass
from typing import Any, Protocol

import procrastinate
import structlog
from procrastinate.exceptions import AlreadyEnqueued
from procrastinate.jobs import Status
from psycopg_pool import ConnectionPool

from bot.conversations import texts
from bot.job_schema import ensure_schema

log = structlog.get_logger("ragbot.jobs")

REINDEX_TASK = "ragbot.reindex_kb"
PRUNE_TASK = "ragbot.prune_expired"
PRUNE_CRON = "17 3 * * *"  # daily, at a quiet hour (UTC)
QUEUE = "ragbot"
MAX_RESUMES = 2  # runs of one job cut short by a dying worker before it is marked failed


class Notifier(Protocol):
    """Tells the admin who started a job how it goes (ephemeral message or DM)."""

    def notify(self, *, channel: str, user: str, text: str, response_url: str | None = None,
               surface: str = "slack", address: dict[str, str] | None = None) -> None: ...


ProgressFn = Callable[[Any], None]
ReindexFn = Callable[[str, ProgressFn], Any]
"""Runs a reindex of one KB, calling the progress callback as it goes; returns a report."""


@dataclass
class JobDeps:
    """What jobs need to run: the reindex itself and a way to report to the admin."""

    reindex: ReindexFn
    notifier: Notifier
    progress_interval_s: float = 15.0
    # deletes expired data (store.retention); None: no retention job in this worker
    prune: Callable[[], Any] | None = None


class AlreadyQueuedError(Exception):
    """A reindex of this KB is already waiting in the queue."""


# ---------------------------------------------------------------- schema and deferring

class JobQueue:
    """Defers jobs and answers questions about them, from synchronous code."""

    def __init__(self, pool: ConnectionPool) -> None:
        self._pool = pool
        self._app = procrastinate.App(connector=procrastinate.SyncPsycopgConnector())
        self._app.open(pool)
        with pool.connection() as conn:
            ensure_schema(conn)

    def defer_reindex(self, *, kb: str, channel: str, user: str,
                      response_url: str | None = None, surface: str = "slack",
                      lang: str = "en", address: dict[str, str] | None = None) -> int:
        """Queue a reindex of ``kb`` that reports to ``user`` in ``channel`` of
        ``surface``, in ``lang`` (``address``: the surface's routing data, e.g. Teams'
        serviceUrl); raises AlreadyQueuedError if one is already waiting."""
        deferrer = self._app.configure_task(
            REINDEX_TASK, queue=QUEUE,
            # one waiting job per KB; running ones are serialized by the lock
            queueing_lock=f"reindex:{kb}", lock=f"reindex:{kb}",
        )
        routing: dict[str, Any] = dict(address or {})
        try:
            job_id = deferrer.defer(kb=kb, channel=channel, user=user,
                                    response_url=response_url, surface=surface, lang=lang,
                                    address=routing)
        except AlreadyEnqueued as exc:
            raise AlreadyQueuedError(kb) from exc
        log.info("reindex_deferred", kb=kb, job_id=job_id, user=user)
        return job_id

    def active_reindexes(self) -> list[dict[str, Any]]:
        """Reindex jobs waiting or running: ``[{"job_id", "kb", "status", "user"}]``."""
        with self._pool.connection() as conn:
            rows = conn.execute(
                "SELECT id, args, status::text FROM procrastinate_jobs "
                "WHERE task_name = %s AND status IN ('todo', 'doing') ORDER BY id",
                [REINDEX_TASK],
            ).fetchall()
        return [{"job_id": r[0], "kb": r[1].get("kb"), "status": r[2], "user": r[1].get("user")}
                for r in rows]

    def job_status(self, job_id: int) -> str | None:
        with self._pool.connection() as conn:
            row = conn.execute("SELECT status::text FROM procrastinate_jobs WHERE id = %s",
                               [job_id]).fetchone()
        return row[0] if row else None


# ---------------------------------------------------------------- the reindex task

def describe_report(report: Any) -> str:
    """A one-line summary of a reindex report, whatever its exact shape."""
    data: dict[str, Any]
    if hasattr(report, "to_json"):
        data = dict(report.to_json())
    elif is_dataclass(report) and not isinstance(report, type):
        data = asdict(report)
    elif isinstance(report, dict):
        data = report
    else:
        return str(report)
    parts = [f"{k}={v}" for k, v in data.items()
             if isinstance(v, int | float | str) and not isinstance(v, bool) and k != "kb"]
    errors = data.get("errors") or []
    if errors:
        parts.append(f"errors={len(errors)}")
    return ", ".join(parts) or "done"


@dataclass
class _Throttle:
    interval_s: float
    last: float = field(default=float("-inf"))

    def ready(self) -> bool:
        now = time.monotonic()
        if now - self.last < self.interval_s:
            return False
        self.last = now
        return True


def run_reindex_job(deps: JobDeps, *, kb: str, channel: str, user: str,
                    response_url: str | None = None, surface: str = "slack",
                    lang: str = "en", address: dict[str, str] | None = None) -> str:
    """The body of the reindex task: run it, report progress and the result to the admin.

    A failure is reported and re-raised, so the job is marked failed in the queue.
    """
    bound = log.bind(kb=kb, user=user)
    throttle = _Throttle(deps.progress_interval_s)

    def tell(text: str) -> None:
        try:
            deps.notifier.notify(channel=channel, user=user, text=text,
                                 response_url=response_url, surface=surface,
                                 address=address)
        except Exception:  # a lost progress message must not fail the reindex
            bound.warning("reindex_notify_failed", exc_info=True)

    def on_progress(event: Any) -> None:
        if throttle.ready():
            tell(texts.pick(texts.REINDEX_PROGRESS, lang, kb=kb,
                            summary=describe_report(event)))

    tell(texts.pick(texts.REINDEX_STARTED, lang, kb=kb))
    started = time.monotonic()
    try:
        report = deps.reindex(kb, on_progress)
    except Exception as exc:
        bound.exception("reindex_failed")
        # store errors carry a message that names the item and the fix; others do not
        from store.errors import StoreError

        reason = (str(exc) if isinstance(exc, StoreError)
                  else texts.pick(texts.REINDEX_INTERNAL_ERROR, lang))
        tell(texts.pick(texts.REINDEX_FAILED, lang, kb=kb, reason=reason))
        raise
    summary = describe_report(report)
    bound.info("reindex_finished", seconds=round(time.monotonic() - started, 1))
    tell(texts.pick(texts.REINDEX_FINISHED, lang, kb=kb,
                    seconds=time.monotonic() - started, summary=summary))
    return summary


def build_worker_app(database_url: str, deps: JobDeps) -> procrastinate.App:
    """The procrastinate app that runs jobs, its tasks bound to ``deps``."""
    app = procrastinate.App(connector=procrastinate.PsycopgConnector(
        conninfo=database_url, min_size=1, max_size=4))

    @app.task(name=REINDEX_TASK, queue=QUEUE)
    def reindex_kb(kb: str, channel: str, user: str, *, response_url: str | None = None,
                   surface: str = "slack", lang: str = "en",
                   address: dict[str, str] | None = None) -> str:
        # ``surface``, ``lang`` and ``address`` came later; jobs queued before them have
        # none (Slack's, English)
        return run_reindex_job(deps, kb=kb, channel=channel, user=user,
                               response_url=response_url, surface=surface, lang=lang,
                               address=address)

    # Procrastinate's recipe for jobs whose worker died mid-run (no heartbeat for 30 s):
    # put them back in the queue. Safe for reindex, which switches generations atomically.
    @app.periodic(cron="* * * * *")
    @app.task(name="ragbot.retry_stalled_jobs", queue=QUEUE,
              queueing_lock="retry_stalled_jobs")
    async def retry_stalled_jobs(timestamp: int) -> int:
        # this task runs every minute: keep a day of finished jobs, not every run forever
        await app.job_manager.delete_old_jobs(nb_hours=24, queue=QUEUE)
        return await requeue_stalled(app)

    if deps.prune is not None:
        prune = deps.prune

        @app.periodic(cron=PRUNE_CRON)
        @app.task(name=PRUNE_TASK, queue=QUEUE, queueing_lock="prune_expired")
        def prune_expired(timestamp: int) -> str:
            report = prune()
            log.info("retention_pruned", **_counts(report))
            return describe_report(report)

    return app


def _counts(report: Any) -> dict[str, Any]:
    return dict(report.to_json()) if hasattr(report, "to_json") else {"report": str(report)}


def store_prune(pool: ConnectionPool, days: int) -> Callable[[], Any]:
    """The production prune: ``store.retention.prune_expired`` on ``pool``."""

    def run() -> Any:
        from store.retention import prune_expired

        with pool.connection() as conn:
            return prune_expired(conn, days=days)

    return run


async def requeue_stalled(app: procrastinate.App) -> int:
    """Put jobs left 'doing' by a dead worker back in the queue; returns how many."""
    manager = app.job_manager
    count = 0
    for job in await manager.get_stalled_jobs(task_name=REINDEX_TASK):
        if job.attempts >= MAX_RESUMES:
            # a job that keeps killing its worker must not keep the KB's lock forever
            log.error("job_abandoned_after_crashes", job_id=job.id, attempts=job.attempts)
            await manager.finish_job(job, status=Status.FAILED, delete_job=False)
            continue
        log.warning("job_requeued_after_crash", job_id=job.id, task=job.task_name,
                    attempts=job.attempts)
        await manager.retry_job(job)
        count += 1
    return count


def store_reindex(pool: ConnectionPool, embedder: Any,
                  limits: tuple[int, int] | None = None) -> ReindexFn:
    """The production ReindexFn: ``store.reindex.reindex`` on ``pool`` with ``embedder``;
    ``limits`` is (``RAGBOT_MAX_FILE_MB`` in bytes, ``RAGBOT_MAX_PDF_PAGES``), the same limits
    ``ragbot ingest`` and ``ragbot reindex`` apply (the store's defaults when None)."""

    def run(kb: str, on_progress: ProgressFn) -> Any:
        from store.reindex import reindex

        if limits is None:
            return reindex(pool, kb, embedder=embedder, on_progress=on_progress)
        return reindex(pool, kb, embedder=embedder, on_progress=on_progress,
                       max_file_bytes=limits[0], max_pdf_pages=limits[1])

    return run


# ---------------------------------------------------------------- the worker thread

class Worker:
    """A procrastinate worker on its own event loop in a daemon thread."""

    def __init__(self, app: procrastinate.App, *, name: str = "ragbot-worker",
                 polling_interval_s: float = 5.0, retry_stalled: bool = True) -> None:
        self._app = app
        self._name = name
        self._polling = polling_interval_s
        self._retry_stalled = retry_stalled
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[None] | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None

    def start(self, timeout_s: float = 30.0) -> Worker:
        """Start the worker thread and wait until it listens for jobs."""
        self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
        self._thread.start()
        if not self._ready.wait(timeout_s):
            raise TimeoutError(f"job worker did not start within {timeout_s}s")
        if self._error is not None:
            raise RuntimeError("job worker failed to start") from self._error
        return self

    def _run(self) -> None:
        try:
            asyncio.run(self._main())
        except BaseException as exc:  # reported to start() or logged; the thread just ends
            self._error = exc
            log.exception("job_worker_crashed")
        finally:
            self._ready.set()

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        async with self._app.open_async():
            if self._retry_stalled:
                await requeue_stalled(self._app)
            self._task = asyncio.create_task(self._app.run_worker_async(
                name=self._name, queues=[QUEUE], install_signal_handlers=False,
                fetch_job_polling_interval=self._polling, delete_jobs="never"))
            self._ready.set()
            log.info("job_worker_started", name=self._name)
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        log.info("job_worker_stopped", name=self._name)

    def stop(self, timeout_s: float = 30.0) -> None:
        """Stop taking jobs, let a running one finish (up to ``timeout_s``), end the thread."""
        loop, task = self._loop, self._task
        if loop is not None and task is not None and not loop.is_closed():
            loop.call_soon_threadsafe(task.cancel)
        if self._thread is not None:
            self._thread.join(timeout_s)

    @property
    def alive(self) -> bool:
        return self._thread is not None and self._thread.is_alive()


def start_worker(database_url: str, deps: JobDeps, **options: Any) -> Worker:
    """Start a job worker thread for ``ragbot serve``; call ``.stop()`` on shutdown."""
    return Worker(build_worker_app(database_url, deps), **options).start()
