"""Near forms of a word: the same word inflected, of the same root, or typed with a slip."""

from __future__ import annotations

from store.stem import stem

# Words shorter than this are matched exactly: "cat" / "car" are different words.
MIN_NEAR = 5
# Two longer words with the same first six letters share a root ("historical" / "history").
ROOT = 6


def _one_edit(a: str, b: str) -> bool:
    """One substitution, insertion or deletion apart (``a != b``)."""
    if abs(len(a) - len(b)) > 1:
        return False
    i = 0
    while i < min(len(a), len(b)) and a[i] == b[i]:
        i += 1
    return a[i + 1:] == b[i + 1:] or a[i + 1:] == b[i:] or a[i:] == b[i + 1:]


def near(a: str, b: str) -> bool:
    """The same word, an inflection of it, a word of the same root, or a one-letter typo
    (Latin words of five or more letters; shorter words and Chinese words match exactly)."""
    if a == b:
        return True
    if len(a) < MIN_NEAR or len(b) < MIN_NEAR or not (a.isascii() and b.isascii()):
        return False
    shared_root = len(a) >= ROOT and len(b) >= ROOT and a[:ROOT] == b[:ROOT]
    return shared_root or stem(a) == stem(b) or _one_edit(a, b)
