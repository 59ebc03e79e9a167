"""The one English stemmer of the code base: Snowball's English (Porter2) algorithm, from
snowballstemmer, used by every rule that pairs inflections ("bicycles" / "bicycle",
"performers" / "performer", "Izgoy's" / "Izgoy").

A hand-written suffix list pairs the plural it was written for and misses the rest
("studies" / "study", "running" / "run"); Snowball is the stemmer search engines use and is
maintained. Chinese words have no inflection and are returned as they are.
"""

from __future__ import annotations

import threading
from functools import lru_cache
from typing import Any

import snowballstemmer

# A Snowball stemmer keeps its cursor on the instance: one per thread (Bolt answers in a
# thread pool).
_local = threading.local()


def _stemmer() -> Any:
    found = getattr(_local, "stemmer", None)
    if found is None:
        found = _local.stemmer = snowballstemmer.stemmer("english")
    return found


@lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """The stem of a lower-cased English ``word`` ("studies" -> "studi", "running" -> "run");
    a possessive ("Izgoy's", "Izgoy’s") loses its "'s". A word that is not Latin letters
    (Chinese, a number, a code) is returned unchanged."""
    if not word.isascii() and not any(c.isalpha() and c.isascii() for c in word):
        return word
    return str(_stemmer().stemWord(word.replace("’", "'")))
