"""What a knowledge base holds, as filter values: doc types, titles, sources."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from store.kb import get_kb
from store.types import PUBLIC

if TYPE_CHECKING:
    from psycopg_pool import ConnectionPool


def kb_facets(pool: ConnectionPool, kb_name: str, principals: Sequence[str] = (PUBLIC,), *,
              limit: int = 500) -> dict[str, list[str]]:
    """Distinct doc types, titles and sources of the latest documents ``principals`` may read.

    Used for clarify options and to drop planned filters that match nothing. Each list is
    sorted and holds at most ``limit`` values.
    """
    with pool.connection() as conn:
        kb = get_kb(conn, kb_name)
        out: dict[str, list[str]] = {}
        for key, column in (("doc_types", "doc_type"), ("titles", "title"),
                            ("sources", "source")):
            rows = conn.execute(
                f"SELECT DISTINCT {column} FROM documents "
                "WHERE kb_id = %(kb)s AND is_latest AND acl && %(p)s::text[] AND generation = "
                "(SELECT active_generation FROM knowledge_bases WHERE id = %(kb)s) "
                f"ORDER BY {column} LIMIT %(limit)s",
                _params(kb.id, principals, limit),
            ).fetchall()
            out[key] = [r[0] for r in rows if r[0]]
    return out


def _params(kb_id: int, principals: Sequence[str], limit: int) -> dict[str, Any]:
    return {"kb": kb_id, "p": list(principals) or [PUBLIC], "limit": limit}
