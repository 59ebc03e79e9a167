"""Chinese words typed with a wrong character of the same sound, read as the KB's word.

Chinese is typed through a pinyin input method: the asker types the syllables and picks a
character, and a slip picks another character of the same syllable ("报消" for 报销, "发漂"
for 发票). Such a word is in no passage, so the refusal gate finds the question's key word
missing and the keyword search never looks for it. A word is read as the KB's word only
when all of these hold, so that a rare word of the asker's is never rewritten:

- it is two to four Chinese characters and no dictionary headword (a real word is what the
  asker meant, even when the KB lacks it);
- the KB holds none of it;
- changing one of its characters for one of the same reading (tones aside: input methods
  list them together) gives a dictionary headword the KB holds, and exactly one such word.

Readings come from CC-CEDICT's entries of one character (``store.cedict``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from store.cedict import Cedict
from store.kb_vocab import document_frequencies

# Longer words are phrases; a single character has too many readings and senses.
SHORTEST, LONGEST = 2, 4
_CHINESE_WORD = re.compile(r"[\u3400-\u9fff]+")


def sound_alikes(word: str, cedict: Cedict) -> list[str]:
    """The dictionary headwords one character away from ``word`` whose changed character
    has a reading of the character it replaces ("报消" -> ["报销"]); none for a word that is
    a headword itself or not two to four Chinese characters."""
    if (not SHORTEST <= len(word) <= LONGEST or not _CHINESE_WORD.fullmatch(word)
            or word in cedict.zh_en):
        return []
    out: list[str] = []
    for i, char in enumerate(word):
        for syllable in cedict.readings.get(char, ()):
            for other in cedict.homophones.get(syllable, ()):
                candidate = word[:i] + other + word[i + 1:]
                if other != char and candidate in cedict.zh_en and candidate not in out:
                    out.append(candidate)
    return out


def corrections(conn: Any, kb_ids: Sequence[int], terms: Sequence[str], cedict: Cedict
                ) -> dict[str, list[str]]:
    """Per term of ``terms`` that the KBs ``kb_ids`` hold nowhere, the one word of the same
    sound that they hold (see the module docstring)."""
    alike = {t: words for t in dict.fromkeys(terms) if (words := sound_alikes(t, cedict))}
    if not alike:
        return {}
    df, _ = document_frequencies(
        conn, kb_ids, list(dict.fromkeys([*alike, *(w for ws in alike.values() for w in ws)])))
    out: dict[str, list[str]] = {}
    for typed, words in alike.items():
        held = [w for w in words if df.get(w, 0) > 0]
        if df.get(typed, 0) == 0 and len(held) == 1:
            out[typed] = held
    return out
