"""The turn deadline at the terminal, where no worker process can be killed and replaced.

The agent stops a slow turn between its steps (``TurnTimeoutError``). A step that never
returns is left behind on a daemon thread instead: the command tells the user and ends,
and the thread ends with the process.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

from agent.errors import TurnTimeoutError

T = TypeVar("T")

# Past the deadline, the agent's own stop (after its current step) is waited for this long.
STOP_GRACE_S = 5.0


class TurnAbandonedError(TurnTimeoutError):
    """The turn did not stop at its deadline; it was left running and the command ends."""


def within_deadline(call: Callable[[], T], timeout_s: float,
                    grace_s: float = STOP_GRACE_S) -> T:
    """``call()``'s result, or ``TurnAbandonedError`` when it has not returned ``grace_s``
    after ``timeout_s``. What ``call`` raises is raised here."""
    outcome: dict[str, T | BaseException] = {}

    def run() -> None:
        try:
            outcome["result"] = call()
        except BaseException as exc:  # handed to the caller's thread
            outcome["error"] = exc

    thread = threading.Thread(target=run, daemon=True, name="ragbot-turn")
    thread.start()
    thread.join(timeout_s + grace_s)
    if thread.is_alive():
        raise TurnAbandonedError(None, timeout_s)
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    return outcome["result"]  # type: ignore[return-value]
