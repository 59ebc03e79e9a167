"""Where agent turns run: worker processes (``ragbot serve``), or threads of this process.

The process that receives the surfaces' requests owes each an ack within milliseconds.
Agent turns are CPU-bound Python (embedding, ranking, the graph); run in its threads they
hold the interpreter lock that the request threads need for their acks (a burst of 50
Slack events on 2 cores: ack p99 439 ms). ``ProcessTurnWork`` runs them in worker
processes instead, each with its own database pool, embedder, agent and surface clients
(``bot.conversations.worker``), so this process only verifies, deduplicates, acknowledges
and posts the first status line.
``ThreadTurnWork`` keeps turns in this process, for tests that inject an agent object.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import queue
import signal
import threading
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from typing import TYPE_CHECKING, Protocol

import structlog

from bot.conversations import worker
from bot.conversations.executor import ContextThreadPoolExecutor

if TYPE_CHECKING:
    from bot.conversations.turns import TurnRunner
    from bot.conversations.worker import WorkerConfig
    from store.conversations import Turn

log = structlog.get_logger("ragbot.conversations.work")

OnLost = Callable[["Turn"], None]

# How long past its deadline a worker gets to stop a turn itself (the agent checks the
# deadline between graph steps, then posts the apology) before it is killed and replaced.
STOP_GRACE_S = 5.0


class TurnWork(Protocol):
    """Runs journaled turns (``TurnRunner.run``) after their status line is posted."""

    def start(self, runner: TurnRunner, on_lost: OnLost) -> None:
        """Get ready; ``on_lost`` gets a turn whose worker died under it."""

    def submit(self, turn: Turn) -> None:
        """Queue the turn; it runs when a worker is free."""

    def shutdown(self) -> None:
        """Finish the turns in hand; drop the queued ones (the journal keeps them)."""


class ThreadTurnWork:
    """Turns on a bounded pool of threads in this process."""

    def __init__(self, max_workers: int = 4) -> None:
        self._executor = ContextThreadPoolExecutor(max_workers=max_workers,
                                                   thread_name_prefix="ragbot-turn")
        self._runner: TurnRunner | None = None

    def start(self, runner: TurnRunner, on_lost: OnLost) -> None:
        self._runner = runner  # a thread cannot die alone: nothing is ever lost here

    def submit(self, turn: Turn) -> None:
        if self._runner is None:
            raise RuntimeError("ThreadTurnWork.start() was not called")
        self._executor.submit(self._runner.run, turn)

    def shutdown(self) -> None:
        self._executor.shutdown(wait=True, cancel_futures=True)


class _Worker:
    """One worker process, behind a one-process ``ProcessPoolExecutor`` (which gives the
    call protocol, the initializer and death detection)."""

    def __init__(self, config: WorkerConfig) -> None:
        self._config = config
        self.executor = self._spawn()
        self.ready = self.warm()

    def _spawn(self) -> ProcessPoolExecutor:
        # spawn, not fork: this process has threads (HTTP, Bolt, pools) that fork would
        # copy mid-flight, locks included
        return ProcessPoolExecutor(max_workers=1,
                                   mp_context=multiprocessing.get_context("spawn"),
                                   initializer=worker.init_worker,
                                   initargs=(self._config,))

    def warm(self) -> Future[int]:
        """Start the process and build its dependencies now (not on the first turn)."""
        return self.executor.submit(worker.ready)

    def wait_ready(self) -> None:
        """Wait for the process to be built, so a turn's clock starts when it can run.
        A failed start shows when the turn is submitted (a broken pool)."""
        with contextlib.suppress(Exception):  # reported by the submit after it
            self.ready.result()

    def kill(self) -> None:
        """Kill the process (stuck in a turn that will not stop): SIGKILL, as nothing in
        it can be trusted to run cleanup."""
        with contextlib.suppress(OSError, FutureTimeout):  # gone already, or never started
            os.kill(self.ready.result(timeout=0), signal.SIGKILL)

    def replace(self) -> None:
        self.executor.shutdown(wait=False, cancel_futures=True)
        self.executor = self._spawn()
        self.ready = self.warm()


class ProcessTurnWork:
    """Turns on ``workers`` worker processes, fed from one queue in arrival order.

    Each worker is its own failure domain: when one dies (killed, out of memory, a crash in
    native code) only its turn is lost; it goes to ``on_lost`` (re-run once, else reported
    with its trace id, as after a restart) and the worker is replaced. When this process
    dies, its workers exit too (``bot.conversations.worker``) and the turn journal takes over.

    A turn has ``RAGBOT_TURN_TIMEOUT_S``: the worker's agent stops it between steps and
    apologises. A worker still in the turn ``STOP_GRACE_S`` later (a step that never
    returns) is killed and replaced, and the asker gets the apology from here; such a
    turn is not re-run, as it would hang again.
    """

    def __init__(self, config: WorkerConfig, workers: int) -> None:
        if workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        self.config = config
        self.size = workers
        self._queue: queue.Queue[Turn | None] = queue.Queue()
        self._workers: list[_Worker] = []
        self._threads: list[threading.Thread] = []
        self._stopping = threading.Event()
        self._on_lost: OnLost = _unhandled
        self._runner: TurnRunner | None = None
        self.deadline_s = config.settings.turn_timeout_s + STOP_GRACE_S

    def start(self, runner: TurnRunner, on_lost: OnLost) -> None:
        if self._workers:
            return
        self._on_lost = on_lost
        self._runner = runner
        for i in range(self.size):
            w = _Worker(self.config)
            self._workers.append(w)
            thread = threading.Thread(target=self._dispatch, args=(w,), daemon=True,
                                      name=f"ragbot-turn-dispatch-{i}")
            thread.start()
            self._threads.append(thread)

    def wait_ready(self, timeout_s: float = 300.0) -> list[int]:
        """Block until every worker has built its dependencies; their process ids.
        Raises what a worker's start raised (a bad database URL, a missing model)."""
        return [w.ready.result(timeout=timeout_s) for w in self._workers]

    def submit(self, turn: Turn) -> None:
        self._queue.put(turn)

    def depth(self) -> int:
        """Turns waiting for a free worker (``/metrics``)."""
        return self._queue.qsize()

    def alive(self) -> int:
        """Worker processes started and still running (``/metrics``)."""
        running = {p.pid for p in multiprocessing.active_children()}
        return sum(1 for w in self._workers
                   if w.ready.done() and w.ready.exception() is None
                   and w.ready.result() in running)

    def _dispatch(self, w: _Worker) -> None:
        while True:
            turn = self._queue.get()
            if turn is None:
                return
            w.wait_ready()
            try:
                w.executor.submit(worker.run_turn, turn).result(timeout=self.deadline_s)
            except FutureTimeout:
                # no traceback to show: the worker is alive, only late
                log.error("turn_worker_stuck", turn_id=turn.id,  # noqa: TRY400
                          trace_id=turn.trace_id, thread=turn.thread_key,
                          deadline_s=self.deadline_s)
                w.kill()
                w.replace()
                self._report_timeout(turn)
            except BrokenProcessPool:
                log.exception("turn_worker_died", turn_id=turn.id,
                              trace_id=turn.trace_id, thread=turn.thread_key)
                if self._stopping.is_set():
                    return
                w.replace()
                self._lost(turn)
            except Exception:  # run_turn catches everything; this is the call itself
                log.exception("turn_dispatch_failed", turn_id=turn.id,
                              trace_id=turn.trace_id)

    def _report_timeout(self, turn: Turn) -> None:
        try:
            if self._runner is not None:
                self._runner.report_timeout(turn)
        except Exception:  # the journal still holds it as running: recovery reports it
            log.exception("turn_timeout_report_failed", turn_id=turn.id)

    def _lost(self, turn: Turn) -> None:
        try:
            self._on_lost(turn)
        except Exception:  # the journal still holds it: the next restart takes it over
            log.exception("turn_recovery_failed", turn_id=turn.id)

    def shutdown(self) -> None:
        self._stopping.set()
        # queued turns stay 'running' in the journal; at retire they become orphans that
        # another replica, or the next start, takes over
        while True:
            try:
                self._queue.get_nowait()
            except queue.Empty:
                break
        for _ in self._threads:
            self._queue.put(None)
        for thread in self._threads:
            thread.join()
        for w in self._workers:
            w.executor.shutdown(wait=True, cancel_futures=True)


def _unhandled(turn: Turn) -> None:
    log.error("turn_lost_without_handler", turn_id=turn.id)
