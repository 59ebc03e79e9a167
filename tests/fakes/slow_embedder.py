"""The real embedder behind a slow search: each query embedding first waits ``delay_s``
(with a long delay, never within the turn), so tests can push a turn past its deadline."""

from __future__ import annotations

import time
from typing import Any


class SlowQueryEmbedder:
    """Wraps a real embedder; documents embed at full speed, queries after ``delay_s``."""

    def __init__(self, embedder: Any, delay_s: float) -> None:
        self.embedder, self.delay_s = embedder, delay_s
        self.name, self.dim = embedder.name, embedder.dim
        self.multilingual = embedder.multilingual

    def embed_documents(self, texts: Any) -> Any:
        return self.embedder.embed_documents(texts)

    def embed_query(self, text: str) -> Any:
        time.sleep(self.delay_s)
        return self.embedder.embed_query(text)
