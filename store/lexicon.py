"""ragbot's workplace lexicon (``lexicon.tsv``): Chinese office terms and their English
renderings, read beside CC-CEDICT.

CC-CEDICT is a general dictionary: it lacks much of the everyday vocabulary of company
documents and chat (内网 "intranet", 封网 "change freeze", 餐补 "meal allowance", 连不上
"can't connect"), and where it has a word it often lists the workplace sense among many
others ("release" glosses a dozen headwords, so it is not translated at all). The lexicon
is written by category (HR, IT, engineering and operations, finance and procurement, legal
and security, customer service) from general knowledge of how both languages name these
things, and ``store.cedict`` merges it into its lookups ahead of CC-CEDICT's entries: an
entry is a workplace sense and takes precedence over the dictionary's many-sense cut
(``store.crosslang``). Its translations are filtered by a KB's vocabulary as the
dictionary's are.

The data is ragbot's own (Apache-2.0); see the file header.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from importlib import resources

DATA_FILE = "lexicon.tsv"
# Glosses are looked up as runs of at most three words (store.phrases).
MOST_WORDS = 3
_HEADWORD = re.compile(r"[\u3400-\u9fff]{2,}")
# Lower-case words, digits, hyphens and apostrophes ("can't connect", "wi-fi", "2fa").
_GLOSS = re.compile(r"[a-z0-9][a-z0-9'\-]*(?: [a-z0-9][a-z0-9'\-]*)*")


class LexiconError(ValueError):
    """A line of the lexicon that does not parse; the message names the line."""


@dataclass(frozen=True)
class Entry:
    """One line: a Chinese headword and its English renderings, most usual first."""

    headword: str
    glosses: tuple[str, ...]


def parse(text: str) -> list[Entry]:
    """The entries of lexicon ``text`` (see the data file's header for the format). Raises
    LexiconError naming the first line that is not a headword of two or more Chinese
    characters, a tab and "/"-separated lower-case glosses of at most three words (a hyphen
    separates words: "wi-fi" is read as "wi fi"), or that repeats a headword."""
    out: list[Entry] = []
    seen: set[str] = set()
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        head, tab, rest = line.partition("\t")
        glosses = tuple(g.strip() for g in rest.split("/"))
        problem = (
            "no tab after the headword" if not tab
            else "the headword is not two or more Chinese characters"
            if not _HEADWORD.fullmatch(head)
            else f"{head} is listed twice" if head in seen
            else "an empty gloss" if not all(glosses)
            else next((f"gloss {g!r} is not lower-case words" for g in glosses
                       if not _GLOSS.fullmatch(g)), None)
            or next((f"gloss {g!r} has more than {MOST_WORDS} words" for g in glosses
                     if len(g.replace("-", " ").split()) > MOST_WORDS), None)
            or ("a gloss is listed twice" if len(set(glosses)) < len(glosses) else None))
        if problem:
            raise LexiconError(f"{DATA_FILE} line {number}: {problem}")
        seen.add(head)
        out.append(Entry(head, glosses))
    return out


def packaged_text() -> str:
    """The packaged lexicon file's text."""
    return resources.files("store").joinpath(DATA_FILE).read_text(encoding="utf-8")


@functools.cache
def packaged() -> tuple[Entry, ...]:
    """The packaged lexicon's entries, read once per process."""
    return tuple(parse(packaged_text()))
