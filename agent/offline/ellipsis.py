"""An ellipsis that names a new value for the earlier question's slot.

"那丧假呢？" after "婚假有几天？" asks "丧假有几天？"; "And in Tier 2?" after "What is the hotel
cap in Tier 1 cities?" asks about Tier 2 cities. The new word stands where its sibling stood
in the earlier question, so it replaces that sibling instead of being searched beside it:
searched and ranked together, the old word pulls the answer back to the row already given.

Siblings are read from the words' form alone: two Chinese compounds with the same head (the
last character names the kind: 婚假 / 丧假, 五千块 / 一千块, 一线 / 二线) or two numbers
("Tier 1" / "Tier 2", "2025" / "2026").
"""

from __future__ import annotations

import re

from agent.state import Language
from agent.text import content_terms
from store.tokenize import has_cjk

_OPEN_ZH = re.compile(r"^\s*(那么|那|还有|另外)")
_OPEN_EN = re.compile(r"^\s*(and|but|also|so|then|what about|how about)\b[\s,]*", re.I)
_CLOSE = re.compile(r"的?\s*(呢|吗)?\s*[？?。.!！]*\s*$")


def _core(question: str, language: Language) -> str:
    """The question without its continuing opening and closing particle ("那丧假呢？" ->
    "丧假"): the words that stand for the earlier question's slot."""
    opening = _OPEN_ZH if language == "zh" else _OPEN_EN
    return _CLOSE.sub("", opening.sub("", question)).strip()


def _siblings(new: str, old: str) -> bool:
    """Words of one kind that fill the same slot: Chinese compounds sharing their head
    character, or two numbers."""
    if new == old:
        return False
    if has_cjk(new) and has_cjk(old):
        return len(new) >= 2 and len(old) >= 2 and new[-1] == old[-1]
    return new.isdigit() and old.isdigit()


def substitute(question: str, language: Language, previous: str) -> str | None:
    """``previous`` (the earlier turn's standalone question) with each of its words that the
    follow-up ``question`` names a sibling of replaced by that sibling; ``None`` unless every
    topic word of ``question`` is either in ``previous`` or a sibling of one of its words
    (a follow-up with a word of its own asks something else, and is rewritten by adding the
    thread's topic instead)."""
    own = content_terms(question)
    before = content_terms(previous)
    pairs: list[tuple[str, str]] = []
    for term in own:
        if term in before:
            continue
        old = next((b for b in before if _siblings(term, b)), None)
        if old is None:
            return None
        pairs.append((term, old))
    if not pairs:
        return None
    core = _core(question, language)
    out = previous
    for new, old in pairs:
        # A Chinese follow-up of one word keeps what jieba cut off it ("陪产假呢" is read as
        # 陪 + 产假; the slot's value is 陪产假).
        value = core if len(own) == 1 and has_cjk(new) and new in core and len(core) <= 8 else new
        pattern = re.escape(old) if has_cjk(old) else rf"(?<![\w.]){re.escape(old)}(?![\w.])"
        out, n = re.subn(pattern, value.replace("\\", r"\\"), out, count=1, flags=re.I)
        if not n:
            return None
    return out
