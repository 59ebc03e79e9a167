"""Per-turn trace: each node's input and output snapshot, logged and kept for storage."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import structlog

from agent.state import TraceStep

log = structlog.get_logger("agent")


@dataclass
class TraceRecorder:
    """Collects the steps of one turn (one graph invocation) under ``trace_id``."""

    trace_id: str
    thread_id: str
    steps: list[TraceStep] = field(default_factory=list)

    def record(self, node: str, started: float, inp: dict[str, Any],
               out: dict[str, Any]) -> None:
        """Keep and log one node's snapshot; ``started`` is its ``time.perf_counter()``."""
        ms = round((time.perf_counter() - started) * 1000, 2)
        self.steps.append(TraceStep(node=node, input=inp, output=out, ms=ms))
        log.debug("node", node=node, trace_id=self.trace_id, thread_id=self.thread_id, ms=ms,
                 input=inp, output=out)


def hits_snapshot(passages: Sequence[Mapping[str, Any]],
                  limit: int = 20) -> list[dict[str, Any]]:
    """Chunk ids with scores, not text: enough to walk a turn back without leaking content."""
    return [{"chunk_id": p["chunk_id"], "doc_id": p["doc_id"], "score": round(p["score"], 5),
             "round": p.get("round"), "sub_id": p.get("sub_id")} for p in passages[:limit]]
