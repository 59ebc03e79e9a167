"""Access lists fail closed: a document's restricted list is never widened by accident.

Ingesting a parent folder (or a file whose front matter lost its ``acl``) reads documents
with no access list of their own, which would make them public. A document that already has
a restricted list keeps it unless the new ingest sets one explicitly (``--acl``, front
matter, corpus ``metadata.acl``); a reindex keeps every document's current list unless the
document itself sets one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import psycopg

from store.types import PUBLIC, SourceDocument


def current_acls(conn: psycopg.Connection[Any], kb_id: int, generation: int,
                 keys: Sequence[str]) -> dict[str, tuple[str, ...]]:
    """The access list of each key's newest version in ``generation``."""
    rows = conn.execute(
        "SELECT DISTINCT ON (doc_key) doc_key, acl FROM documents WHERE kb_id = %s AND "
        "generation = %s AND doc_key = ANY(%s) ORDER BY doc_key, version DESC",
        [kb_id, generation, list(keys)]).fetchall()
    return {r[0]: tuple(r[1]) for r in rows}


def kept_acl(doc: SourceDocument, current: tuple[str, ...] | None, *,
             rebuilding: bool) -> tuple[str, ...] | None:
    """The access list ``doc`` must keep instead of its own, or None to use its own.

    ``rebuilding``: a reindex, where only the document's own list (not the recorded
    source's ``--acl``) may change the current one.
    """
    if current is None or set(current) == set(doc.acl):
        return None
    if rebuilding:
        return current if doc.acl_origin != "document" else None
    restricted = PUBLIC not in current
    return current if restricted and doc.acl_origin == "default" else None


def kept_note(doc: SourceDocument, acl: tuple[str, ...]) -> str:
    """The line an ingest prints for a document that kept its access list."""
    return (f"{doc.source}: keeps its access list {', '.join(acl)} (this ingest sets none "
            "for it; pass --acl, or set acl in its front matter or metadata, to change it)")
