"""Names spelled in pinyin: "Jiangwan" in an English question is 江湾 in a Chinese report.

Dictionaries do not list most names of places, companies and products, so a name crosses
languages by its sound: an English text writes a Chinese name in toneless pinyin, run
together ("Qinglan New Energy" for 青岚新能, "Lanting" for 澜庭). The readings of each
character come from CC-CEDICT's one-character entries (the same packaged file as
``store.cedict``); a Latin word counts as a pinyin name only when it is no English word the
dictionary glosses and it splits whole into two to four syllables.
"""

from __future__ import annotations

import gzip
import itertools
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from functools import lru_cache

from store.cedict import _source

# Syllables a name may run together, and the readings tried per Chinese word.
MIN_SYLLABLES, MAX_SYLLABLES = 2, 4
MAX_SPELLINGS = 8
_ENTRY = re.compile(r"^\S+ (\S) \[([^\]]+)\]")
_TONE = re.compile(r"[1-5]$")


@lru_cache(maxsize=1)
def readings() -> Mapping[str, frozenset[str]]:
    """Each character's toneless pinyin readings ("湾" -> {"wan"}; ü written "u" and "v")."""
    found: dict[str, set[str]] = {}
    with gzip.open(_source(), "rt", encoding="utf-8") as fh:
        for line in fh:
            m = _ENTRY.match(line)
            if not m or " " in m.group(2) or not "\u3400" <= m.group(1) <= "\u9fff":
                continue
            syllable = _TONE.sub("", m.group(2).lower())
            if not syllable.isascii() or not re.fullmatch(r"[a-z:]+", syllable):
                continue
            forms = {syllable.replace("u:", "v"), syllable.replace("u:", "u")}
            found.setdefault(m.group(1), set()).update(forms)
    return {char: frozenset(s) for char, s in found.items()}


@lru_cache(maxsize=1)
def syllables() -> frozenset[str]:
    """Every toneless syllable some character reads as."""
    return frozenset(s for forms in readings().values() for s in forms)


def split(word: str) -> list[str] | None:
    """``word`` cut into pinyin syllables, fewest first ("jiangwan" -> ["jiang", "wan"]), or
    ``None`` when it does not split whole into ``MIN_SYLLABLES``–``MAX_SYLLABLES``."""
    word = word.lower()
    if not word.isascii() or not word.isalpha():
        return None
    known = syllables()
    best: dict[int, list[str]] = {0: []}
    for end in range(1, len(word) + 1):
        for start in range(max(0, end - 6), end):
            if start in best and word[start:end] in known:
                cut = [*best[start], word[start:end]]
                if end not in best or len(cut) < len(best[end]):
                    best[end] = cut
    cut = best.get(len(word))
    return cut if cut and MIN_SYLLABLES <= len(cut) <= MAX_SYLLABLES else None


def spellings(chinese: str) -> set[str]:
    """The run-together pinyin spellings of ``chinese`` (at most ``MAX_SPELLINGS``; none
    when a character has no reading): "禾丰" -> {"hefeng"}."""
    table = readings()
    per_char = [sorted(table.get(c, ())) for c in chinese]
    if not per_char or not all(per_char):
        return set()
    return {"".join(p) for p in itertools.islice(itertools.product(*per_char), MAX_SPELLINGS)}


def may_be_name(word: str, english: Mapping[str, object]) -> bool:
    """Whether a Latin ``word`` may be a Chinese name in pinyin: no word the dictionary's
    English glosses use (``english``: "change" splits as chang-e but is English), and it
    splits whole into syllables."""
    return word.lower() not in english and split(word) is not None


@lru_cache(maxsize=1)
def _characters() -> Mapping[str, str]:
    """Each syllable's characters, as one string ("wan" -> "万完湾…")."""
    found: dict[str, list[str]] = {}
    for char, forms in readings().items():
        for syllable in forms:
            found.setdefault(syllable, []).append(char)
    return {syllable: "".join(chars) for syllable, chars in found.items()}


def pattern(latin: str) -> str | None:
    """A regular expression (Python's and PostgreSQL's alike) matching the Chinese words
    spelled ``latin`` ("jiangwan" -> "[江将…][湾完…]"), or ``None`` when it is no run of
    syllables."""
    cut = split(latin)
    if cut is None:
        return None
    characters = _characters()
    return "".join(f"[{characters[s]}]" for s in cut)


def spelled_words(latin: str, texts: Iterable[str], most: int = 2) -> list[str]:
    """The words of ``texts`` spelled ``latin`` ("jiangwan" -> ["江湾"]), most frequent
    first."""
    found = pattern(latin)
    if found is None:
        return []
    compiled = re.compile(found)
    counts = Counter(w for text in texts for w in compiled.findall(text))
    return [w for w, _ in counts.most_common(most)]
