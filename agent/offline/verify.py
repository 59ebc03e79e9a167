"""Offline ``verify``: each sentence must be found, nearly word for word, in a cited passage."""

from __future__ import annotations

import re

from agent.offline.layout import readable
from agent.state import Passage, Sentence, Verdict, VerifyInput
from agent.text import content_terms, ngram_containment, strip_citations, term_hits

# Extractive sentences score 1.0; light edits (punctuation, a joined clause) stay above this.
MIN_SUPPORT = 0.75
# A line of pieces joined by semicolons (steps' leads in one line): each piece is checked.
_PIECES = re.compile(r"[；;]\s*")


def support(sentence: str, source: str) -> float:
    """How much of ``sentence`` ``source`` contains: topic terms and character bigrams; a
    line of semicolon-joined pieces is as supported as its least supported piece."""
    claim = strip_citations(sentence)
    pieces = [p for p in _PIECES.split(claim) if p.strip()]
    whole = _support(claim, source)
    if len(pieces) > 1:
        return max(whole, min(_support(p, source) for p in pieces))
    return whole


def _support(claim: str, source: str) -> float:
    source = source.replace("**", "").replace("__", "")  # as split_sentences drops them
    terms = content_terms(claim)
    term_share = len(term_hits(terms, source)) / len(terms) if terms else 1.0
    return min(term_share, ngram_containment(claim, source))


def sentence_supported(s: Sentence, passages: list[Passage]) -> bool:
    """Is ``s`` found, nearly word for word, in a passage it cites?"""
    if s.get("note"):
        return True  # the bot's own words about the evidence, in the asker's language
    if not content_terms(strip_citations(s["text"])) and len(s["text"]) <= 8 and s["cites"]:
        return True  # "Yes." / "No.": the sentences after it carry the evidence
    cited = [passages[n - 1] for n in s["cites"] if 1 <= n <= len(passages)]
    if not cited:
        return not s["cites"] and not passages
    # A section's heading is the document's words too ("1. 找到慢在哪里：…" outlines it).
    sources = [p["title"] + "\n" + "\n".join(p["heading_path"]) + "\n" + readable(p["text"])
               for p in cited]
    if max(support(s["text"], source) for source in sources) >= MIN_SUPPORT:
        return True
    # Steps' leads in one line may come from several cited sections, each from its own.
    pieces = [p for p in _PIECES.split(strip_citations(s["text"])) if p.strip()]
    return len(pieces) > 1 and all(
        max(_support(piece, source) for source in sources) >= MIN_SUPPORT for piece in pieces)


def verify(inp: VerifyInput) -> Verdict:
    draft = inp["draft"]
    if draft["refused"]:
        return Verdict(supported=True, unsupported=[], reason="refusal needs no support")
    passages = inp["passages"]
    unsupported = [s["text"] for s in draft["sentences"]
                   if not sentence_supported(s, passages)]
    if unsupported:
        return Verdict(supported=False, unsupported=unsupported,
                       reason=f"{len(unsupported)} sentence(s) not found in the cited passages")
    return Verdict(supported=True, unsupported=[], reason="every sentence is in a cited passage")
