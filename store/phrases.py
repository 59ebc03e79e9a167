"""English multiword expressions found among CC-CEDICT's glosses.

A phrasal verb or fixed phrase ("in advance", "after the event", "public holiday", "on
duty", "hand over") is often one gloss of one Chinese word, while its words alone gloss
nothing useful or scatter into wrong senses ("advance" alone is a dozen headwords, "in" a
stop word). The question's own words are therefore looked up among the glosses as runs of
three words, then two, longest first and left to right, before any word alone; a word taken
by a phrase is not looked up again. The glosses are written as bare verbs, singular nouns
and sometimes with "the" ("the following year"), so a run is also tried with its first and
last word in their dictionary forms and with "the" before it.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from itertools import product

from store.english_forms import lemmas
from store.tokenize import STOPWORDS

# The dictionary keeps glosses of at most three words as lookups (store.cedict).
LONGEST = 3
_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?")
# A run never opens with an article: "the" is tried before each run instead ("following
# year" finds "the following year"), and "the core" is no phrase of "the core databases".
_ARTICLES = frozenset(("the", "a", "an"))
# A run ending in "to" or "of" is a connective waiting for its object ("according to",
# "that kind of"), no topic of its own.
_OPEN_ENDS = frozenset(("to", "of"))
# A run opening with a question word or a modal verb is the question's frame, not its topic:
# "how many" (几个) and "need to" (务必) ask for a kind of value or an obligation, which
# agent.offline.kinds reads in either language.
_FRAME = frozenset(("how", "what", "when", "where", "who", "whom", "whose", "which", "why",
                    "need", "needs", "have", "has", "had", "must", "should", "can", "could",
                    "may", "might", "will", "would", "do", "does", "did"))


@dataclass(frozen=True)
class Phrase:
    """A run of the question's words that the dictionary glosses as a whole."""

    text: str  # as the question writes it, lower-cased ("carried forward")
    words: tuple[str, ...]  # the question's words it takes
    headwords: list[str]  # the Chinese headwords glossed by it


def _forms(words: Sequence[str]) -> list[str]:
    """The gloss forms of ``words``: the first and the last word each in its dictionary
    forms (a phrasal verb inflects its verb, a noun phrase its noun), each also with "the"
    before it."""
    first, last = lemmas(words[0]), lemmas(words[-1])
    middle = list(words[1:-1])
    out: list[str] = []
    for a, b in product(first, last):
        text = " ".join([a, *middle, b]) if len(words) > 1 else a
        out += [text, f"the {text}"]
    return list(dict.fromkeys(out))


def gloss_phrases(query: str, en_zh: Mapping[str, list[str]], *,
                  skip: Collection[str] = (),
                  prefer: Mapping[str, list[str]] | None = None) -> list[Phrase]:
    """The runs of two or three of ``query``'s English words that ``en_zh`` (gloss ->
    headwords) holds, longest first; runs do not overlap. A run of stop words only ("in
    the") is never one, nor one opening with an article or the question's frame ("how
    many", "need to"), nor one ending in "to" or "of", which waits for its object
    ("according to", "that kind of"), nor one of ``skip``. Among runs of one length, those
    ``prefer`` holds (the workplace lexicon's glosses) are taken first: "business trips"
    before "on business" in "allowance on business trips"."""
    words = _WORD.findall(query.lower())
    taken = [False] * len(words)
    out: list[Phrase] = []
    for n in range(LONGEST, 1, -1):
        for lookup in [*([prefer] if prefer else []), en_zh]:
            for i in range(len(words) - n + 1):
                run = words[i:i + n]
                if (any(taken[i:i + n]) or run[0] in _FRAME or run[0] in _ARTICLES
                        or run[-1] in _OPEN_ENDS or all(w in STOPWORDS for w in run)
                        or " ".join(run) in skip):
                    continue
                form = next((f for f in _forms(run) if f in lookup), None)
                if form is not None and (heads := en_zh.get(form) or lookup[form]):
                    out.append(Phrase(" ".join(run), tuple(run), heads))
                    taken[i:i + n] = [True] * n
    return out
