"""Which knowledge bases a question searches: the offline rule.

Each KB is scored by how likely its passages make the question's words (query likelihood, as
in collection selection). A word's rate in a KB is the share of the KB's passages the asker
may read that hold it, or else hold its dictionary translations or glossary synonyms, or
:data:`DESCRIBED` when the KB's description or summary names it. Three things keep the
scores fair between KBs of different sizes and languages:

- **Size.** Rates are smoothed towards the mean rate over the KBs with a fixed weight
  (Jelinek-Mercer, :data:`SMOOTHING`), and a description's word counts for a share of the
  KB, not a number of passages: a word a KB lacks costs a small KB as much as a large one.
  (A fixed prior in passages, as before, made a missing word cheaper for a small KB, so the
  smallest one won questions its words were scattered over.)
- **Loose glosses.** A word's translations are weighed as a translation model with every
  gloss equally likely: their mean, not their best, so a word with many glosses ("报销":
  "write", "account", "off"...) is not as strong as its most generic one.
- **Generic glosses.** A gloss counts by how rare it is among all the KBs' passages (idf
  within the set): "not" or "time" in a KB's English passages says which language the KB
  is written in, not what it is about.

Words no KB holds are left out; words every KB holds alike cancel out. The scores become
shares that sum to 1 (softmax), so a KB that holds all the distinctive words stands out. The
best KB alone is searched when it stands out, the best two when together they hold most of
the question, else all of them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

# Chosen on half A of samplekb split into its domains (even-numbered threads); see README.
ONE_SHARE = 0.6  # the best KB alone holds at least this share ...
LEAD = 2.0  # ... and this many times the runner-up's share
TWO_SHARE = 0.8  # the best two together hold at least this share
DESCRIBED = 0.1  # rate of a word the KB's description (or summary) names
TRANSLATED = 0.5  # weight of the passages holding only a translation of the word
SMOOTHING = 0.2  # weight of the mean rate over the KBs in each KB's rate


@dataclass(frozen=True)
class KbEvidence:
    """What one KB holds of a question's words."""

    name: str
    passages: int  # active passages of the KB
    held: Mapping[str, float]  # question word -> readable passages holding it
    described: frozenset[str]  # question words its description or summary names
    # question word -> each of its translations or synonyms -> readable passages holding it
    glossed: Mapping[str, Mapping[str, float]] = field(default_factory=dict)


def _gloss_idf(evidence: Sequence[KbEvidence]) -> dict[str, float]:
    """Each gloss's idf among all the KBs' passages, scaled to 0..1."""
    total = sum(max(e.passages, 1) for e in evidence)
    df: dict[str, float] = {}
    for e in evidence:
        for glosses in e.glossed.values():
            for gloss, n in glosses.items():
                df[gloss] = df.get(gloss, 0.0) + n
    top = math.log(total + 1)
    return {g: max(0.0, math.log((total + 1) / (n + 0.5))) / top for g, n in df.items()}


def _rate(e: KbEvidence, term: str, idf: Mapping[str, float]) -> float:
    """The share of ``e``'s passages that hold ``term`` (see the module's docstring)."""
    size = max(e.passages, 1)
    glosses = e.glossed.get(term, {})
    translated = (sum(n * idf.get(g, 0.0) for g, n in glosses.items()) / len(glosses)
                  if glosses else 0.0)
    held = max(float(e.held.get(term, 0.0)), TRANSLATED * translated)
    return min(1.0, held / size + (DESCRIBED if term in e.described else 0.0))


def kb_shares(evidence: Sequence[KbEvidence], terms: Sequence[str]) -> dict[str, float]:
    """Each KB's share of the question (shares sum to 1, or are all 0 when no KB holds any
    of ``terms``)."""
    idf = _gloss_idf(evidence)
    log_like = {e.name: 0.0 for e in evidence}
    used = 0
    for term in dict.fromkeys(terms):
        rates = {e.name: _rate(e, term, idf) for e in evidence}
        mean = sum(rates.values()) / max(len(rates), 1)
        if mean <= 0:
            continue  # no KB holds it: it cannot tell them apart
        used += 1
        for name, rate in rates.items():
            log_like[name] += math.log((1 - SMOOTHING) * rate + SMOOTHING * mean)
    if not used:
        return {e.name: 0.0 for e in evidence}
    top = max(log_like.values())
    weights = {name: math.exp(v - top) for name, v in log_like.items()}
    norm = sum(weights.values())
    return {name: round(w / norm, 4) for name, w in weights.items()}


def pick(shares: Mapping[str, float], order: Sequence[str]) -> tuple[list[str], str]:
    """The KBs to search (best first) and why, from ``shares``; ``order`` breaks ties."""
    ranked = sorted(order, key=lambda n: (-shares.get(n, 0.0), order.index(n)))
    if len(ranked) <= 1:
        return ranked, "one knowledge base"
    s1, s2 = shares.get(ranked[0], 0.0), shares.get(ranked[1], 0.0)
    # Every KB searched is listed best first: rank fusion breaks ties in that order.
    if s1 <= 0:
        return list(order), "no knowledge base holds the question's words: all searched"
    if s1 >= ONE_SHARE and s1 >= LEAD * s2:
        return ranked[:1], f"{ranked[0]} explains {s1:.0%} of the question's words"
    if len(ranked) > 2 and s1 + s2 >= TWO_SHARE:
        return ranked[:2], (f"{ranked[0]} and {ranked[1]} explain {s1 + s2:.0%} of the "
                            "question's words")
    return ranked, "no knowledge base stands out: all searched"
