"""The live status message: pacing per thread, coalescing of stages, the final answer."""

from __future__ import annotations

import itertools
import threading
import time
from typing import Any

from bot.conversations.live import LiveStatus
from bot.conversations.model import Place
from bot.conversations.pacing import ThreadPacer
from bot.slack.blocks import Message
from bot.slack.surface import SlackSurface

PLACE = Place("slack", "T", "C", "1.0")


def _surface(client: RecordingClient) -> SlackSurface:
    return SlackSurface(client, directory=None)  # type: ignore[arg-type]  # posts only


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_pacer_spaces_slots_per_thread_and_threads_are_independent() -> None:
    clock = Clock()
    pacer = ThreadPacer(1.0, clock=clock)
    assert pacer.reserve("a") == 0.0
    assert pacer.reserve("a") == 1.0
    assert pacer.reserve("a") == 2.0
    assert pacer.reserve("b") == 0.0
    clock.now += 5
    assert pacer.reserve("a") == 0.0
    assert pacer.wait_hint("a") == 1.0


class RecordingClient:
    """Stands in for WebClient's two chat methods, recording when each was called."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, float, dict[str, Any]]] = []
        self.lock = threading.Lock()

    def chat_postMessage(self, **kw: Any) -> dict[str, Any]:
        with self.lock:
            self.calls.append(("post", time.monotonic(), kw))
            return {"ts": f"{len(self.calls)}.0"}

    def chat_update(self, **kw: Any) -> dict[str, Any]:
        with self.lock:
            self.calls.append(("update", time.monotonic(), kw))
            return {"ts": kw["ts"]}


def test_fast_stages_are_coalesced_and_writes_stay_a_slot_apart() -> None:
    client = RecordingClient()
    status = LiveStatus(_surface(client), ThreadPacer(0.2), PLACE)
    status.post("thinking")
    for i in range(20):
        status.stage(f"stage {i}")
    time.sleep(0.5)
    status.finish([Message("answer", []), Message("more", [])])
    kinds = [c[0] for c in client.calls]
    assert kinds[0] == "post"
    assert kinds[-2:] == ["update", "post"]
    assert kinds.count("update") <= 3  # 20 stages became at most a couple of updates
    stage_updates = [c[2]["text"] for c in client.calls if c[0] == "update"][:-1]
    assert stage_updates
    assert stage_updates[-1] == "stage 19"
    times = [c[1] for c in client.calls]
    assert all(b - a >= 0.19 for a, b in itertools.pairwise(times))
    assert client.calls[-1][2]["thread_ts"] == "1.0"
    assert client.calls[-1][2]["unfurl_links"] is False


def test_stage_after_finish_is_dropped() -> None:
    client = RecordingClient()
    status = LiveStatus(_surface(client), ThreadPacer(0.05), PLACE)
    status.post("thinking")
    status.finish([Message("answer", [])])
    status.stage("late")
    time.sleep(0.15)
    assert [c[2].get("text") for c in client.calls][-1] == "answer"
