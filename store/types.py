"""Typed records exchanged between the store and its callers (all JSON-able)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any, Literal

PUBLIC = "public"

# Who set a document's access list: the document itself (front matter, corpus metadata, a
# caller building documents), the ingest's --acl option, or nobody (public by default).
AclOrigin = Literal["document", "option", "default"]


@dataclass(frozen=True)
class SourceDocument:
    """One document read from an input, before chunking."""

    doc_key: str  # stable id: the corpus id for .jsonl lines, else the resolved file path
    source: str  # where it came from (a path, or the corpus file + id)
    title: str
    text: str
    doc_type: str = "document"
    acl: tuple[str, ...] = (PUBLIC,)
    metadata: dict[str, Any] = field(default_factory=dict)
    fmt: str = "text"  # "markdown" | "html" | "text" ... guides structure-aware chunking
    acl_origin: AclOrigin = "document"


@dataclass(frozen=True)
class ChunkDraft:
    position: int
    heading_path: tuple[str, ...]
    text: str
    token_count: int


@dataclass(frozen=True)
class SearchFilters:
    """Restrictions applied in SQL before ranking. Empty means no restriction."""

    doc_types: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()  # exact sources or prefixes ending in "/"
    updated_after: datetime | None = None


@dataclass(frozen=True)
class Hit:
    """One ranked chunk."""

    chunk_id: int
    doc_id: str  # the document's doc_key
    title: str
    source: str
    doc_type: str
    heading_path: tuple[str, ...]
    text: str
    score: float
    dense_rank: int | None = None
    keyword_rank: int | None = None
    kb: str = ""  # the knowledge base it came from (set by store.multi_search)
    date: str = ""  # the document's own date (its metadata's "date"), if it gives one

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["heading_path"] = list(self.heading_path)
        return data


def principals_for(*, user: str | None = None, channel: str | None = None,
                   groups: tuple[str, ...] = (), public_only: bool = False) -> tuple[str, ...]:
    """Access principals in the ``metadata.acl`` vocabulary (``user:U1``, ``channel:C1``...)."""
    out = [PUBLIC]
    if public_only:
        return tuple(out)
    if user:
        out.append(f"user:{user}")
    if channel:
        out.append(f"channel:{channel}")
    out.extend(f"group:{g}" for g in groups)
    return tuple(out)
