"""Which knowledge bases a question searches: the offline rule.

Each KB is scored by how likely its passages make the question's words (query likelihood
with Dirichlet smoothing, as in collection selection): a word counts as held by the share of
the KB's passages the asker may read that hold it, or hold one of its translations or
glossary synonyms (at :data:`TRANSLATED` weight: a dictionary gloss is weaker evidence), plus
:data:`DESCRIBED` passages when the KB's description or summary names it. Words no KB holds
are left out; words every KB holds alike cancel out. The scores become shares that sum to 1
(softmax), so a KB that holds all the distinctive words stands out. The best KB alone is
searched when it stands out, the best two when together they hold most of the question,
else all of them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

# Tuned on half A of samplekb split into its domains (even-numbered threads); see README.
ONE_SHARE = 0.6  # the best KB alone holds at least this share ...
LEAD = 2.0  # ... and this many times the runner-up's share
TWO_SHARE = 0.8  # the best two together hold at least this share
DESCRIBED = 2.0  # passages a description's (or summary's) word counts for
TRANSLATED = 0.25  # weight of a passage holding only a translation of the word
SMOOTHING = 10.0  # Dirichlet prior, in passages


@dataclass(frozen=True)
class KbEvidence:
    """What one KB holds of a question's words."""

    name: str
    passages: int  # active passages of the KB
    held: Mapping[str, float]  # question word -> readable passages holding it (see above)
    described: frozenset[str]  # question words its description or summary names


def kb_shares(evidence: Sequence[KbEvidence], terms: Sequence[str]) -> dict[str, float]:
    """Each KB's share of the question (shares sum to 1, or are all 0 when no KB holds any
    of ``terms``)."""
    counts = {e.name: {t: e.held.get(t, 0.0) + (DESCRIBED if t in e.described else 0.0)
                       for t in terms} for e in evidence}
    total = sum(max(e.passages, 1) for e in evidence)
    log_like = {e.name: 0.0 for e in evidence}
    used = 0
    for term in dict.fromkeys(terms):
        held = sum(c[term] for c in counts.values())
        if held <= 0:
            continue  # no KB holds it: it cannot tell them apart
        used += 1
        background = (held + 0.5) / (total + 1.0)
        for e in evidence:
            log_like[e.name] += math.log((counts[e.name][term] + SMOOTHING * background)
                                         / (max(e.passages, 1) + SMOOTHING))
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
    # Every KB searched is listed best first (the trace and a widened follow-up keep it).
    if s1 <= 0:
        return list(order), "no knowledge base holds the question's words: all searched"
    if s1 >= ONE_SHARE and s1 >= LEAD * s2:
        return ranked[:1], f"{ranked[0]} explains {s1:.0%} of the question's words"
    if len(ranked) > 2 and s1 + s2 >= TWO_SHARE:
        return ranked[:2], (f"{ranked[0]} and {ranked[1]} explain {s1 + s2:.0%} of the "
                            "question's words")
    return ranked, "no knowledge base stands out: all searched"
