"""Keeping promises across crashes: this process's heartbeat, a sweep that takes over
turns whose process died after acknowledging them, and the turns of a worker process
that died under them.

An orphaned turn is re-run once (its status message, if any, is reused); a turn that was
already re-run is reported to the asker with its trace id instead of being tried forever.
"""

from __future__ import annotations

import threading
from dataclasses import replace
from typing import TYPE_CHECKING

import structlog

from bot.conversations.turns import TurnRunner
from store import conversations as journal

if TYPE_CHECKING:
    from bot.conversations.deps import ConversationDeps
    from store.conversations import Turn

log = structlog.get_logger("ragbot.conversations.recovery")

_PRUNE_EVERY = 360  # heartbeats between prunes of old event ids (an hour at 10 s)


class Maintenance:
    def __init__(self, deps: ConversationDeps, runner: TurnRunner | None = None) -> None:
        self.deps = deps
        self.runner = runner or TurnRunner(deps)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def beat(self) -> None:
        with self.deps.pool.connection() as conn:
            journal.heartbeat(conn, self.deps.instance_id)

    def recover_once(self) -> int:
        """Take over orphaned turns; returns how many were re-run or reported."""
        with self.deps.pool.connection() as conn:
            orphans = journal.claim_orphans(conn, self.deps.instance_id,
                                            stale_after_s=self.deps.stale_after_s,
                                            surfaces=self.deps.surface_names)
        for turn in orphans:
            try:
                self._rerun_or_report(turn, "turn_resumed_after_restart")
            except Exception:  # one bad turn must not stop the others
                log.exception("turn_recovery_failed", turn_id=turn.id)
        return len(orphans)

    def recover_lost(self, turn: Turn) -> None:
        """A worker process died under ``turn`` while this process lives on (so no sweep
        would find it): count the attempt, then re-run it or report it like an orphan."""
        with self.deps.pool.connection() as conn:
            current = journal.count_attempt(conn, turn.id)
        if current is None:  # it finished after all
            return
        current = replace(current, status_id=current.status_id or turn.status_id,
                          trace_id=current.trace_id or turn.trace_id)
        self._rerun_or_report(current, "turn_resumed_after_worker_died")

    def _rerun_or_report(self, turn: Turn, event: str) -> None:
        """Re-run an unfinished turn while it has attempts left, else tell the asker."""
        if turn.attempts <= self.deps.max_attempts:
            log.warning(event, turn_id=turn.id, attempts=turn.attempts, trace_id=turn.trace_id)
            self.runner.start(turn)
        else:
            self.runner.report_restart(turn)

    def start(self) -> Maintenance:
        """Beat once now (so this process's own turns are never taken as orphans), then
        beat and sweep every ``heartbeat_s`` in a background thread."""
        self.beat()
        self._thread = threading.Thread(target=self._loop, daemon=True,
                                        name="ragbot-maintenance")
        self._thread.start()
        return self

    def _loop(self) -> None:
        ticks = 0
        while True:
            try:
                self.recover_once()
                if ticks % _PRUNE_EVERY == 0:
                    with self.deps.pool.connection() as conn:
                        journal.prune(conn)
            except Exception:  # the database may be restarting; try again next tick
                log.exception("maintenance_failed")
            if self._stop.wait(self.deps.heartbeat_s):
                return
            ticks += 1
            try:
                self.beat()
            except Exception:
                log.exception("heartbeat_failed")

    def stop(self, *, retire: bool = True) -> None:
        """Stop beating and (by default) retire: unfinished turns become orphans for other
        replicas at once. Without ``retire`` they do after ``stale_after_s``, as after a
        crash."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        if not retire:
            return
        try:
            with self.deps.pool.connection() as conn:
                journal.retire(conn, self.deps.instance_id)
        except Exception:
            log.exception("retire_failed")
