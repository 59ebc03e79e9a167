"""A conversation's knowledge bases: one name, or a set written ``hr+it`` (``hr,it`` on the
command line), or ``*`` for every KB.

A set travels as its key (the names joined by ``+``) wherever one KB name travelled before
(the Slack turn journal, ``agent.api.Question.kb``, traces), so one KB is exactly as before.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import psycopg

from store.errors import KnowledgeBaseNotFoundError, NoKnowledgeBaseError

EVERY = "*"
_SPLIT = re.compile(r"[+,]")
# Characters a KB name may not hold: they separate the names of a set.
RESERVED = frozenset("+,*")


def parse_kb_set(text: str) -> tuple[str, ...]:
    """The KB names of ``text`` (``"hr+it"``, ``"hr,it"``, ``"*"``), in order, once each.

    Raises ValueError naming the entry and the fix when a name is empty."""
    names = [n.strip() for n in _SPLIT.split(text or "")]
    if not any(names) or (len(names) > 1 and not all(names)):
        raise ValueError(f"knowledge base set {text!r} has an empty name; write names "
                         "joined by '+' (or ',' on the command line), e.g. hr+it")
    if EVERY in names and len(names) > 1:
        raise ValueError(f"knowledge base set {text!r} mixes '*' (every KB) with names; "
                         "use one or the other")
    return tuple(dict.fromkeys(names))


def kb_set_key(names: Sequence[str]) -> str:
    """The set's key: its names joined by ``+`` (a single name is itself)."""
    return "+".join(names)


def check_kb_name(name: str) -> None:
    """Raise ValueError when ``name`` cannot name a KB (empty, too long, or reserved)."""
    if not name or len(name) > 100 or RESERVED & set(name):
        raise ValueError(f"invalid knowledge base name {name!r}: 1-100 characters, none of "
                         "'+', ',' or '*' (they join the names of a set)")


def resolve_kb_set(conn: psycopg.Connection[Any], text: str) -> tuple[str, ...]:
    """The existing KBs ``text`` names: ``*`` is every KB (sorted); a name that does not
    exist raises KnowledgeBaseNotFoundError (which names the fix)."""
    names = parse_kb_set(text)
    rows = conn.execute("SELECT name FROM knowledge_bases ORDER BY name").fetchall()
    existing = [str(r[0]) for r in rows]
    if names == (EVERY,):
        if not existing:
            raise NoKnowledgeBaseError
        return tuple(existing)
    for name in names:
        if name not in existing:
            raise KnowledgeBaseNotFoundError(name)
    return names
