"""Faithfulness of an answer to the passages it cites (pure).

The answer is split into sentences; each sentence carries the document marks ``[n]`` that
follow it. A sentence is faithful when it is found in a passage of a document it cites (after
NFKC, case-folding and whitespace removal), or covered by one: at least ``COVERED`` of its
content terms occur in that passage. A sentence without marks is checked against every passage
the answer cites; a lead-in (ending with a colon) or a sentence without content terms is not
counted.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any

from store.tokenize import query_terms, tokens

COVERED = 0.8
_MARKS = re.compile(r"((?:\s*\[\d+\])+)")
_MARK = re.compile(r"\[(\d+)\]")
_BULLET = re.compile(r"^(?:\d{1,2}[.)、]|[-*•])\s*")
# Ends a sentence: Chinese or English end punctuation, a line break; not a list number's dot.
_SENTENCE_END = re.compile(r"(?<=[。！？!?；;])|(?<!\b\d\.)(?<!\b\d\d\.)(?<=[.:：])\s+|\n+")


def _norm(text: str) -> str:
    return "".join(unicodedata.normalize("NFKC", text).casefold().split())


def cited_sentences(answer: str) -> list[tuple[str, tuple[int, ...]]]:
    """(sentence, document numbers it cites) for each sentence of ``answer``."""
    out: list[tuple[str, tuple[int, ...]]] = []
    pieces = _MARKS.split(answer)
    for i in range(0, len(pieces), 2):
        marks = tuple(int(m) for m in _MARK.findall(pieces[i + 1])) if i + 1 < len(pieces) \
            else ()
        parts = [_BULLET.sub("", p.strip()) for p in _SENTENCE_END.split(pieces[i])
                 if p and p.strip()]
        # The marks belong to the last sentence before them; earlier ones inherit nothing.
        out.extend((p, marks if j == len(parts) - 1 else ()) for j, p in enumerate(parts))
    return out


def sentence_supported(sentence: str, passages: Sequence[str]) -> bool:
    """Found in, or covered by, one of ``passages``."""
    flat = _norm(sentence)
    terms = query_terms(sentence)
    for passage in passages:
        if flat and flat in _norm(passage):
            return True
        held = set(tokens(passage))
        if terms and sum(1 for t in terms if t in held) >= COVERED * len(terms):
            return True
    return False


def faithfulness(answer: str, cited: Sequence[Mapping[str, Any]]) -> tuple[int, int]:
    """(faithful sentences, counted sentences) of ``answer``; ``cited`` holds the cited
    passages as ``{"n": document number, "text": passage text}``."""
    by_n: dict[int, list[str]] = {}
    for c in cited:
        by_n.setdefault(int(c["n"]), []).append(str(c["text"]))
    every = [t for texts in by_n.values() for t in texts]
    good = counted = 0
    for sentence, marks in cited_sentences(answer):
        if sentence.endswith((":", "：")) or not query_terms(sentence):
            continue
        counted += 1
        passages = [t for n in marks for t in by_n.get(n, [])] if marks else every
        good += sentence_supported(sentence, passages)
    return good, counted
