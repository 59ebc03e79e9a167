"""Offline answers to comparisons: which of two named things wins, or yes/no for "both".

Each side is read from its own best passage (the one whose title or text names it); the lead
sentence names the winner (or says yes/no) and cites that passage, and the supporting
sentences follow it in the answer.
"""

from __future__ import annotations

import re

from agent.offline.pairs import comparison_parts
from agent.state import Passage, Sentence
from agent.text import content_terms, norm, split_sentences, term_set

_YEAR = re.compile(r"\b(1[0-9]{3}|20[0-9]{2})\b")
_EARLIER = re.compile(r"\b(oldest|older|earlier|earliest|first|before)\b", re.I)
_LATER = re.compile(r"\b(youngest|younger|later|latest|newer|newest|more recent|most recent|"
                    r"after)\b", re.I)
_BOTH = re.compile(r"^(are|is|were|was|do|did|does)\b[^?]*\bboth\b", re.I)


def _side(part: str, passages: list[Passage]) -> tuple[int, Passage] | None:
    """The passage about ``part``: its title names it, else its text does (best rank)."""
    key = norm(part)
    for by_title in (True, False):
        for n, p in enumerate(passages, start=1):
            hay = norm(p["title"] if by_title else p["text"])
            if key and key in hay:
                return n, p
    return None


def _aspect(question: str, parts: list[str]) -> list[str]:
    named = set().union(*(term_set(p) for p in parts))
    return [t for t in content_terms(question) if t not in named and t != "both"]


def comparison_lead(  # noqa: PLR0911 - each early return is one way the documents fail to decide
        question: str, passages: list[Passage]) -> Sentence | None:
    """"Sid Haig." for "Who is the oldest, Sid Haig or Vic Darchinyan?"; "Yes." or "No."
    for "Are X and Y both …?"; None when the documents do not settle it."""
    parts = comparison_parts(question)
    if len(parts) != 2:
        return None
    sides = [_side(p, passages) for p in parts]
    if any(s is None for s in sides):
        return None
    found = [s for s in sides if s is not None]
    if _BOTH.match(question):
        aspect = _aspect(question, parts)
        if not aspect:
            return None
        covered = []
        for _, p in found:
            best = max((len(set(aspect) & term_set(s)) for s in split_sentences(p["text"])),
                       default=0)
            covered.append(best / len(aspect) >= 0.5)
        return Sentence(text="Yes." if all(covered) else "No.", cites=[found[0][0]])
    earlier, later = _EARLIER.search(question), _LATER.search(question)
    if bool(earlier) == bool(later):
        return None
    years = []
    for _, p in found:
        m = _YEAR.search(p["text"])
        years.append(int(m.group(1)) if m else None)
    if None in years or years[0] == years[1]:
        return None
    pick = (years.index(min(years)) if earlier else years.index(max(years)))  # type: ignore[type-var]
    return Sentence(text=f"{parts[pick]}.", cites=[found[pick][0]])
