"""Asking the offline engine one question over given passages, as the graph would on a
single-retrieval route, without a database or a model."""

from __future__ import annotations

from agent.engine import OfflineEngine
from agent.state import Draft, Passage

ENGINE = OfflineEngine()


def ask(question: str, passages: list[Passage]) -> Draft:
    """The engine's draft answer to ``question`` (the first turn of a thread)."""
    u = ENGINE.understand({"question": question, "history": []})
    return ENGINE.generate({"question": question, "understanding": u,
                            "route": "single_retrieval", "queries": [u["query"]],
                            "passages": passages, "attempt": 0, "rejected": []})
