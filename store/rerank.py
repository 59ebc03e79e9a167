"""Cross-encoder rerankers behind one protocol (optional; off by default).

``bge-reranker*`` models load through FlagEmbedding's ``FlagReranker``; any other name through
sentence-transformers' ``CrossEncoder``. Weights are read from disk only: a hub name must
already be cached, or ``path`` (RAGBOT_RERANKER_PATH) must point at the model folder.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from store.errors import StoreError


@runtime_checkable
class Reranker(Protocol):
    """Scores (query, text) pairs; higher is more relevant. Only the order is used."""

    name: str

    def score(self, query: str, texts: Sequence[str]) -> list[float]: ...


class CrossEncoderReranker:
    """A sentence-transformers CrossEncoder."""

    def __init__(self, name: str, path: str | None = None, *, batch_size: int = 16,
                 max_length: int = 512, device: str = "cpu") -> None:
        from sentence_transformers import CrossEncoder

        self.name = name
        self.batch_size = batch_size
        self._model = CrossEncoder(path or name, max_length=max_length, device=device)

    def score(self, query: str, texts: Sequence[str]) -> list[float]:
        if not texts:
            return []
        scores = self._model.predict([(query, t) for t in texts], batch_size=self.batch_size,
                                     show_progress_bar=False, convert_to_numpy=True)
        return [float(s) for s in scores.reshape(len(texts), -1)[:, 0]]


class FlagRerankerAdapter:
    """BGE rerankers (bge-reranker-base/large/v2-m3) through FlagEmbedding."""

    def __init__(self, name: str, path: str | None = None, *, batch_size: int = 16,
                 max_length: int = 512, device: str = "cpu") -> None:
        from FlagEmbedding import FlagReranker

        self.name = name
        self.batch_size = batch_size
        self.max_length = max_length
        self._model = FlagReranker(path or name, use_fp16=False, devices=[device])

    def score(self, query: str, texts: Sequence[str]) -> list[float]:
        if not texts:
            return []
        scores: Any = self._model.compute_score([[query, t] for t in texts],
                                                batch_size=self.batch_size,
                                                max_length=self.max_length)
        if isinstance(scores, int | float):
            return [float(scores)]
        return [float(s) for s in scores]


def is_flag_reranker(name: str) -> bool:
    return "bge-reranker" in name.lower()


def _fix(name: str) -> str:
    return (f"put the weights of {name!r} in a local folder and set RAGBOT_RERANKER_PATH to it "
            "(or unset RAGBOT_RERANKER to search without reranking)")


def load_reranker(name: str, path: str | None = None, *, device: str = "cpu") -> Reranker:
    """Load the reranker ``name`` (weights from ``path`` when given), offline.

    Raises StoreError naming the fix when the weights are not on disk.
    """
    if not name:
        raise StoreError("no reranker model named; set RAGBOT_RERANKER (e.g. "
                         "BAAI/bge-reranker-base) and RAGBOT_RERANKER_PATH")
    if path is not None:
        folder = Path(path).expanduser()
        if not folder.is_dir():
            raise StoreError(f"reranker model path {path} does not exist or is not a folder; "
                             + _fix(name))
        path = str(folder)
    # Never reach for a hub at query time.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    cls = FlagRerankerAdapter if is_flag_reranker(name) else CrossEncoderReranker
    try:
        return cls(name, path, device=device)
    except (OSError, ValueError, RuntimeError, KeyError) as exc:
        where = f" from {path}" if path else ""
        raise StoreError(f"could not load reranker {name!r}{where}: {exc}; {_fix(name)}") from exc
