"""The process's shared dependencies, built lazily from Settings.

Commands ask for what they need (``ctx.pool``, ``ctx.embedder``); nothing is loaded at
import time and nothing is loaded that a command does not use.
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

from bot.settings import Settings

if TYPE_CHECKING:
    from psycopg_pool import ConnectionPool

    from store.embedder import Embedder


class AppContext:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    @cached_property
    def database_url(self) -> str:
        from store.server import resolve_database_url

        configured = self.settings.database_url
        return resolve_database_url(configured.get_secret_value() if configured else None,
                                    self.settings.home)

    @cached_property
    def pool(self) -> ConnectionPool:
        from store.db import open_pool

        return open_pool(self.database_url)

    @cached_property
    def embedder(self) -> Embedder:
        from store.embedding import load_embedder

        s = self.settings
        return load_embedder(s.embed_model, s.embed_model_path, batch_size=s.embed_batch_size,
                             backend=s.embed_backend, home=s.home)

    def close(self) -> None:
        if "pool" in self.__dict__:
            self.pool.close()
