"""Names spelled in pinyin: "Jiangwan" in an English question is 江湾 in a Chinese report.

Dictionaries do not list most names of places, companies and products, so a name crosses
languages by its sound: an English text writes a Chinese name in toneless pinyin, run
together ("Qinglan New Energy" for 青岚新能, "Lanting" for 澜庭). The readings of each
character are CC-CEDICT's entries of one character (``Cedict.readings``, as
``store.typed_words`` reads them); a Latin word counts as a pinyin name only when it is no
English word the dictionary glosses and it splits whole into two to four syllables.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Iterable, Mapping

from store.cedict import Cedict

# Syllables a name may run together, and the spellings tried per Chinese word.
MIN_SYLLABLES, MAX_SYLLABLES = 2, 4
MAX_SPELLINGS = 8
# The longest syllable ("zhuang", "shuang").
_LONGEST = 6


def _forms(syllable: str) -> set[str]:
    """A syllable as names write it: ü as "v" (the dictionary's) and as "u" (绿 lv / lu)."""
    return {syllable, syllable.replace("v", "u")}


class Spellings:
    """The characters of each toneless syllable, and the syllables of each character."""

    def __init__(self, cedict: Cedict) -> None:
        self._readings = cedict.readings
        chars: dict[str, set[str]] = {}
        for syllable, found in cedict.homophones.items():
            for form in _forms(syllable):
                chars.setdefault(form, set()).update(found)
        self._chars = {s: "".join(sorted(c)) for s, c in chars.items()}

    def split(self, word: str) -> list[str] | None:
        """``word`` cut into syllables, fewest first ("jiangwan" -> ["jiang", "wan"]), or
        ``None`` when it does not split whole into ``MIN_SYLLABLES``–``MAX_SYLLABLES``."""
        word = word.lower()
        if not word.isascii() or not word.isalpha():
            return None
        best: dict[int, list[str]] = {0: []}
        for end in range(1, len(word) + 1):
            for start in range(max(0, end - _LONGEST), end):
                if start in best and word[start:end] in self._chars:
                    cut = [*best[start], word[start:end]]
                    if end not in best or len(cut) < len(best[end]):
                        best[end] = cut
        whole = best.get(len(word))
        return whole if whole and MIN_SYLLABLES <= len(whole) <= MAX_SYLLABLES else None

    def may_be_name(self, word: str, english: Mapping[str, object]) -> bool:
        """Whether a Latin ``word`` may be a Chinese name in pinyin: no word the dictionary's
        English glosses use (``english``: "change" splits as chan-ge but is English), and it
        splits whole into syllables."""
        return word.lower() not in english and self.split(word) is not None

    def of(self, chinese: str) -> set[str]:
        """The run-together spellings of ``chinese`` (at most ``MAX_SPELLINGS``; none when a
        character has no reading): "禾丰" -> {"hefeng"}."""
        per_char = [sorted({f for s in self._readings.get(c, ()) for f in _forms(s)})
                    for c in chinese]
        if not per_char or not all(per_char):
            return set()
        return {"".join(p) for p in itertools.islice(itertools.product(*per_char),
                                                      MAX_SPELLINGS)}

    def pattern(self, latin: str) -> str | None:
        """A regular expression (Python's and PostgreSQL's alike) matching the Chinese words
        spelled ``latin`` ("jiangwan" -> "[…江…][…湾…]"), or ``None`` when it is no run of
        syllables."""
        cut = self.split(latin)
        return None if cut is None else "".join(f"[{self._chars[s]}]" for s in cut)

    def find(self, latin: str, texts: Iterable[str], most: int = 2) -> list[str]:
        """The words of ``texts`` spelled ``latin`` ("jiangwan" -> ["江湾"]), most frequent
        first."""
        found = self.pattern(latin)
        if found is None:
            return []
        compiled = re.compile(found)
        counts = Counter(w for text in texts for w in compiled.findall(text))
        return [w for w, _ in counts.most_common(most)]
