"""The default number of turn workers follows cores and, per backend, memory."""

from __future__ import annotations

import pytest

from bot.capacity import default_workers
from bot.settings import Settings


def test_two_workers_per_core_when_memory_is_plentiful() -> None:
    assert default_workers("torch", cpus=2, memory_mb=32_000) == 4
    assert default_workers("onnx-int8", cpus=3, memory_mb=32_000) == 6


def test_never_more_than_eight() -> None:
    assert default_workers("onnx-int8", cpus=64, memory_mb=512_000) == 8


def test_a_small_host_runs_as_many_as_half_its_memory_holds() -> None:
    # 4 GB, half for workers: two torch workers (750 MB each), seven INT8 ones capped by cores
    assert default_workers("torch", cpus=4, memory_mb=4_000) == 2
    assert default_workers("onnx-int8", cpus=4, memory_mb=4_000) == 7
    assert default_workers("torch", cpus=8, memory_mb=1_000) == 1  # never none


def test_settings_take_the_backend_into_account(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RAGBOT_SLACK_WORKERS", raising=False)
    monkeypatch.setenv("RAGBOT_EMBED_BACKEND", "onnx-int8")
    assert Settings().slack_workers == default_workers("onnx-int8")
    monkeypatch.setenv("RAGBOT_SLACK_WORKERS", "3")
    assert Settings().slack_workers == 3
