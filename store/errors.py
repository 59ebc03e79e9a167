"""Errors raised by the store. Every message names the item and the fix."""

from __future__ import annotations


class StoreError(Exception):
    """Base class for every error the store raises on purpose."""


class DatabaseUnavailableError(StoreError):
    """PostgreSQL could not be reached or started."""


class KnowledgeBaseNotFoundError(StoreError):
    def __init__(self, name: str) -> None:
        super().__init__(
            f"knowledge base {name!r} does not exist; create it with "
            f"`ragbot ingest PATH --kb {name}`"
        )
        self.name = name


class NoKnowledgeBaseError(KnowledgeBaseNotFoundError):
    """``*`` (every KB) was asked for and there is none yet."""

    def __init__(self) -> None:
        StoreError.__init__(self, "no knowledge base exists yet; create one with "
                            "`ragbot ingest PATH --kb NAME`")
        self.name = "*"


class ModelMismatchError(StoreError):
    """The KB was embedded with another model than the one configured now."""

    def __init__(self, kb: str, stored: str, stored_dim: int, wanted: str, wanted_dim: int) -> None:
        super().__init__(
            f"knowledge base {kb!r} was embedded with {stored} ({stored_dim} dimensions) but "
            f"ragbot is configured with {wanted} ({wanted_dim} dimensions); run "
            f"`ragbot reindex --kb {kb}` to re-embed it with {wanted}, or set "
            f"RAGBOT_EMBED_MODEL={stored}"
        )
        self.kb = kb


class BackendMismatchError(StoreError):
    """The KB's vectors were computed by another embedding backend than the one set now."""

    def __init__(self, kb: str, stored: str, wanted: str) -> None:
        super().__init__(
            f"knowledge base {kb!r} was embedded with RAGBOT_EMBED_BACKEND={stored} but "
            f"ragbot is configured with {wanted}; vectors of two backends differ slightly and "
            f"are not mixed: run `ragbot reindex --kb {kb}` with RAGBOT_EMBED_BACKEND={wanted} "
            f"to re-embed it, or set RAGBOT_EMBED_BACKEND={stored}"
        )
        self.kb = kb


class ReindexInProgressError(StoreError):
    def __init__(self, kb: str) -> None:
        super().__init__(
            f"knowledge base {kb!r} is being reindexed or ingested by another process; "
            "wait for it to finish and try again"
        )


class DocumentError(StoreError):
    """One input item could not be ingested; the rest of the batch goes on."""

    def __init__(self, item: str, reason: str, fix: str = "") -> None:
        message = f"{item}: {reason}"
        if fix:
            message += f" ({fix})"
        super().__init__(message)
        self.item = item
        self.reason = reason
