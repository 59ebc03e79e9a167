"""The terminal's turn deadline: a step that never returns is left behind, with a reason."""

from __future__ import annotations

import threading
import time

import pytest

from agent.errors import ThreadBusyError, TurnTimeoutError
from bot.cli.deadline import TurnAbandonedError, within_deadline


def test_an_answer_in_time_is_returned() -> None:
    assert within_deadline(lambda: 42, timeout_s=1.0) == 42


def test_an_error_of_the_turn_reaches_the_caller_unchanged() -> None:
    def busy() -> None:
        raise ThreadBusyError("t1", 5)

    with pytest.raises(ThreadBusyError):
        within_deadline(busy, timeout_s=1.0)


def test_a_turn_that_never_returns_is_abandoned_with_the_setting_to_change() -> None:
    release = threading.Event()
    started = time.perf_counter()
    with pytest.raises(TurnAbandonedError) as err:
        within_deadline(lambda: release.wait(30), timeout_s=0.2, grace_s=0.1)
    release.set()
    assert time.perf_counter() - started < 2
    assert isinstance(err.value, TurnTimeoutError)
    assert "no answer within 0.2s" in str(err.value)
    assert "RAGBOT_TURN_TIMEOUT_S" in str(err.value)
