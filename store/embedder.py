"""What every embedder is, apart from how it computes: the protocol, the vector type, the
model and backend names.

A leaf: the torch loaders (``store.embedding``) and the ONNX runtime path
(``store.onnx_embedding``) both build on it without importing each other.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

DEFAULT_MODEL = "all-MiniLM-L6-v2"
BGE_M3 = "BAAI/bge-m3"
# How vectors are computed (RAGBOT_EMBED_BACKEND); the KB records it with the model.
BACKENDS = ("torch", "onnx", "onnx-int8")

Vectors = npt.NDArray[np.float32]

# Models known to embed Chinese and English into one space. Any other model is treated as
# single-language (English), which lowers its weight in fusion for Chinese queries.
_MULTILINGUAL_MARKERS = ("bge-m3", "multilingual", "labse", "e5-", "gte-multilingual", "m3e")


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors."""

    name: str
    dim: int
    multilingual: bool

    def embed_documents(self, texts: Sequence[str]) -> Vectors: ...

    def embed_query(self, text: str) -> Vectors: ...


def is_multilingual(name: str) -> bool:
    lowered = name.lower()
    return any(marker in lowered for marker in _MULTILINGUAL_MARKERS)
