"""Turn work in worker processes: the status pacer they share with the serving process,
a worker's exit when the serving process dies, and the worker-count setting."""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest

from bot.conversations.pacing import SharedPacer
from bot.conversations.work import ProcessTurnWork, ThreadTurnWork
from bot.settings import Settings


def test_shared_pacer_spaces_one_threads_slots_and_leaves_others_free() -> None:
    pacer = SharedPacer(1.0, slots=1024)
    assert pacer.reserve("a") == 0.0
    assert pacer.reserve("a") == pytest.approx(1.0, abs=0.05)
    assert pacer.wait_hint("a") == pytest.approx(2.0, abs=0.05)
    other = next(k for k in (f"b{i}" for i in range(100)) if pacer._slot(k) != pacer._slot("a"))
    assert pacer.reserve(other) == 0.0


def _reserve_in_child(pacer: SharedPacer, key: str, out: Any) -> None:
    out.put(pacer.reserve(key))


def test_shared_pacer_slots_taken_in_another_process_count_here() -> None:
    ctx = multiprocessing.get_context("spawn")
    pacer = SharedPacer(5.0, slots=1024, context=ctx)
    out = ctx.Queue()
    child = ctx.Process(target=_reserve_in_child, args=(pacer, "thread-1", out))
    child.start()
    assert out.get(timeout=60) == 0.0  # the child took the first slot...
    child.join(10)
    assert pacer.wait_hint("thread-1") > 3.0  # ...so this process waits for the next
    assert pacer.reserve("thread-1") > 3.0


def _orphan_worker(pid_file: str) -> None:
    from bot.conversations.worker import exit_with_parent

    exit_with_parent()
    Path(pid_file).write_text(str(os.getpid()))
    time.sleep(120)  # "answering": must be cut short when the serving process dies


def _serving_process(pid_file: str) -> None:
    ctx = multiprocessing.get_context("spawn")
    ctx.Process(target=_orphan_worker, args=(pid_file,)).start()
    time.sleep(120)


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def test_worker_exits_when_the_serving_process_is_killed(tmp_path: Path) -> None:
    pid_file = tmp_path / "worker.pid"
    ctx = multiprocessing.get_context("spawn")
    serving = ctx.Process(target=_serving_process, args=(str(pid_file),))
    serving.start()
    deadline = time.monotonic() + 60
    while not pid_file.exists() or not pid_file.read_text():
        assert time.monotonic() < deadline, "the worker did not start"
        time.sleep(0.05)
    worker = int(pid_file.read_text())
    assert _alive(worker)
    assert serving.pid is not None
    os.kill(serving.pid, signal.SIGKILL)  # no cleanup runs: as after a crash
    serving.join(10)
    deadline = time.monotonic() + 10
    while _alive(worker):
        assert time.monotonic() < deadline, "the worker outlived the serving process"
        time.sleep(0.05)


def test_worker_count_comes_from_the_environment_and_must_be_positive(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAGBOT_SLACK_WORKERS", "3")
    assert Settings().slack_workers == 3
    monkeypatch.setenv("RAGBOT_SLACK_WORKERS", "0")
    with pytest.raises(ValueError, match=r"slack_workers|RAGBOT_SLACK_WORKERS"):
        Settings()
    monkeypatch.delenv("RAGBOT_SLACK_WORKERS")
    assert Settings().slack_workers >= 2


def test_process_work_needs_a_worker_and_thread_work_needs_start() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        ProcessTurnWork(config=None, workers=0)  # type: ignore[arg-type]
    work = ThreadTurnWork(1)
    with pytest.raises(RuntimeError, match="start"):
        work.submit(None)  # type: ignore[arg-type]
    work.shutdown()
