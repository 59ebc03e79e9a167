"""How many chunks hold a word, from ANALYZE's statistics of ``chunks.tsv``, read once per
ANALYZE instead of once per search.

The list of most common elements has 10,000 words (a migration raised the statistics target):
reading and parsing it took about 10 ms of a 40 ms search at 1M chunks. It changes only when
the table is analyzed, so it is kept per database and table, keyed by the time of the last
ANALYZE (manual or autovacuum's), which one cheap catalog query returns. The row count is read
fresh each time, so estimates follow VACUUM's count between analyses.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import psycopg

# Databases (or schemas) whose lists are kept at once: one per pool in practice, more in tests.
MEMO_SIZE = 16

_STAMP = (
    "SELECT c.oid, c.reltuples, current_schema(), "
    "greatest(pg_stat_get_last_analyze_time(c.oid), pg_stat_get_last_autoanalyze_time(c.oid)) "
    "FROM pg_class c WHERE c.oid = 'chunks'::regclass")
_LIST = (
    "SELECT s.most_common_elems::text::text[], s.most_common_elem_freqs "
    "FROM pg_stats s WHERE s.tablename = 'chunks' AND s.attname = 'tsv' "
    "AND s.schemaname = current_schema()")


@dataclass(frozen=True)
class _Listed:
    """Share of chunks holding each listed word, and the share under which every unlisted
    word lies (PostgreSQL stores the least listed frequency after the element frequencies)."""

    shares: dict[str, float]
    floor: float


class _Memo:
    """A small LRU of lists by stamp, safe to share between a pool's threads."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._entries: OrderedDict[Hashable, _Listed] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> _Listed | None:
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
            return found

    def put(self, key: Hashable, listed: _Listed) -> None:
        with self._lock:
            self._entries[key] = listed
            self._entries.move_to_end(key)
            while len(self._entries) > self._size:
                self._entries.popitem(last=False)


_MEMO = _Memo(MEMO_SIZE)


def _read_list(conn: psycopg.Connection[Any]) -> _Listed | None:
    row = conn.execute(_LIST).fetchone()
    if row is None or row[0] is None or row[1] is None:
        return None
    elems, freqs = list(row[0]), [float(f) for f in row[1]]
    floor = freqs[len(elems)] if len(freqs) > len(elems) else 0.0
    return _Listed(dict(zip(elems, freqs, strict=False)), floor)


def term_frequencies(conn: psycopg.Connection[Any], terms: Sequence[str]
                     ) -> tuple[dict[str, float], float] | None:
    """Estimated chunks holding each term that ANALYZE's most common elements of
    ``chunks.tsv`` list, and the floor under which every unlisted term lies; None without
    statistics (a fresh table, never analyzed: not kept, so the first ANALYZE is seen).
    """
    stamp = conn.execute(_STAMP).fetchone()
    if stamp is None:
        return None
    oid, reltuples, schema, analyzed_at = stamp
    info = conn.info
    key = (info.host, info.port, info.dbname, schema, oid, analyzed_at)
    listed = _MEMO.get(key)
    if listed is None:
        listed = _read_list(conn)
        if listed is None:
            return None
        _MEMO.put(key, listed)
    rows = max(float(reltuples), 0.0)
    wanted = set(terms)
    found = {t: listed.shares[t] * rows for t in wanted if t in listed.shares}
    return found, listed.floor * rows
