"""Whether an answer holds a gold answer (pure).

An alternative matches after Unicode NFKC and case-folding, with whitespace ignored (as the
dataset format says), but an edge of the alternative that is a Latin letter or digit must sit
at a word boundary of the answer: "no" is not found in "known", "5" not in "15 days". Chinese
characters have no such boundary. A yes/no gold ("yes", "no", "是", "否") must be the
answer's verdict: the first yes/no word among its first five words.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from functools import lru_cache

_CJK = r"\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
# A word character that is not CJK: what a Latin word boundary is made of.
_LATIN_WORD = rf"[^\W{_CJK}]"
_IS_LATIN_WORD = re.compile(_LATIN_WORD)
_WORDS = re.compile(rf"[{_CJK}]|{_LATIN_WORD}+(?:'{_LATIN_WORD}+)?")

VERDICTS: dict[str, str] = {
    "yes": "yes", "no": "no", "是": "yes", "否": "no", "不是": "no",
}
# Words that give the opposite verdict early in an answer ("No, ...", "Not ...").
_NEGATIVE = frozenset({"no", "not", "否", "不是", "不"})
_POSITIVE = frozenset({"yes", "是", "对"})
VERDICT_WORDS = 5


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


@lru_cache(maxsize=4096)
def _pattern(alternative: str) -> re.Pattern[str] | None:
    chars = "".join(_fold(alternative).split())
    if not chars:
        return None
    body = r"\s*".join(re.escape(c) for c in chars)
    head = rf"(?<!{_LATIN_WORD})" if _IS_LATIN_WORD.match(chars[0]) else ""
    tail = rf"(?!{_LATIN_WORD})" if _IS_LATIN_WORD.match(chars[-1]) else ""
    return re.compile(head + body + tail)


def contains(answer: str, alternative: str) -> bool:
    """True when ``alternative`` occurs in ``answer`` (see the module docstring)."""
    pattern = _pattern(alternative)
    return pattern is not None and pattern.search(_fold(answer)) is not None


def verdict(answer: str) -> str | None:
    """"yes", "no" or None: the first yes/no word among the answer's first five words."""
    for word in _WORDS.findall(_fold(answer))[:VERDICT_WORDS]:
        if word in _NEGATIVE:
            return "no"
        if word in _POSITIVE:
            return "yes"
    return None


def _is_verdict_group(group: Sequence[str]) -> bool:
    return bool(group) and all(_fold(a).strip() in VERDICTS for a in group)


def group_found(answer: str, group: Sequence[str]) -> bool:
    """One answer group: a yes/no group by the verdict, any other by ``contains``."""
    if _is_verdict_group(group):
        return verdict(answer) in {VERDICTS[_fold(a).strip()] for a in group}
    return any(contains(answer, alt) for alt in group)
