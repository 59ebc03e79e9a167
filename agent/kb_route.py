"""Which knowledge bases a question searches: the offline rule.

Each KB is scored by how likely its passages make the question's words (query likelihood
with Dirichlet smoothing, as in collection selection): a word counts as held by the share of
the KB's passages the asker may read that hold it, or hold one of its translations or
glossary synonyms (at :data:`TRANSLATED` weight: a dictionary gloss is weaker evidence), plus
:data:`DESCRIBED` passages when the KB's description or summary names it. Words no KB holds
are left out; words every KB holds alike cancel out. The scores become shares that sum to 1
(softmax), so a KB that holds all the distinctive words stands out. The best KB alone is
searched when it stands out and its lead rests on evidence (``choose``: words held by few
passages, or by no KB, widen the search; a word the best KB lacks and another holds adds
that KB), the best two when together they hold most of the question, else all of them.
A translation that two of the question's words share counts as fully as they do
(``gloss_weights``).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

# Tuned on half A of samplekb split into its domains (even-numbered threads); see README.
ONE_SHARE = 0.6  # the best KB alone holds at least this share ...
LEAD = 2.0  # ... and this many times the runner-up's share
TWO_SHARE = 0.8  # the best two together hold at least this share
DESCRIBED = 2.0  # passages a description's (or summary's) word counts for
TRANSLATED = 0.25  # weight of a passage holding only a translation of the word
SMOOTHING = 10.0  # Dirichlet prior, in passages
SUPPORT = 2.0  # passages a KB must hold one question word in to be searched alone


@dataclass(frozen=True)
class KbEvidence:
    """What one KB holds of a question's words."""

    name: str
    passages: int  # active passages of the KB
    held: Mapping[str, float]  # question word -> readable passages holding it (see above)
    described: frozenset[str]  # question words its description or summary names


def gloss_weights(terms: Sequence[str], alternatives: Mapping[str, Sequence[str]]
                  ) -> dict[str, float]:
    """Per translation or synonym of ``terms``, the weight of a passage holding it: a gloss
    two of the question's words share translates their phrase ("annual leave" -> 年假,
    "credit card" -> 信用卡) and counts as the words themselves; a gloss of one word, one of
    its senses, counts :data:`TRANSLATED`."""
    shared = Counter(a for t in dict.fromkeys(terms)
                     for a in dict.fromkeys(alternatives.get(t, [])))
    return {a: 1.0 if n >= 2 else TRANSLATED for a, n in shared.items()}


def _counts(evidence: Sequence[KbEvidence], terms: Sequence[str]
            ) -> dict[str, dict[str, float]]:
    """Per KB, the passages holding each of ``terms``, described words counted extra."""
    return {e.name: {t: e.held.get(t, 0.0) + (DESCRIBED if t in e.described else 0.0)
                     for t in terms} for e in evidence}


def kb_shares(evidence: Sequence[KbEvidence], terms: Sequence[str]) -> dict[str, float]:
    """Each KB's share of the question (shares sum to 1, or are all 0 when no KB holds any
    of ``terms``)."""
    counts = _counts(evidence, terms)
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


def choose(evidence: Sequence[KbEvidence], terms: Sequence[str], order: Sequence[str]
           ) -> tuple[list[str], str, dict[str, float]]:
    """The KBs to search (best first), why, and each KB's share (``kb_shares``).

    ``pick`` reads the shares; a KB it picks alone must also rest on evidence, for shares
    compare KBs only with each other, and a word held by one passage of the smallest KB
    already gives it most of the share:
    - when half the question's words or more are in no KB, the words seen may not say
      what it asks ("审批过了钱啥时候打到卡上": only 审批 is held): KBs that hold one of
      them in :data:`SUPPORT` passages are searched beside the pick;
    - the KB must hold one of the question's words in at least :data:`SUPPORT` passages
      (a gloss at its weight), or :data:`LEAD` times as many as any other KB, else all
      are searched: words every KB mentions once or twice do not place a topic;
    - a KB holding in :data:`SUPPORT` passages a word the pick holds nowhere is searched
      beside it (the question's words disagree about where it lives: "annual leave" in
      the HR KB's Chinese policy, "after 5 years" in an IT KB's English text)."""
    shares = kb_shares(evidence, terms)
    kbs, reason = pick(shares, order)
    if len(kbs) != 1 or len(order) <= 1:
        return kbs, reason, shares
    words = list(dict.fromkeys(terms))
    counts = _counts(evidence, words)
    ranked = sorted(order, key=lambda n: (-shares.get(n, 0.0), order.index(n)))
    best = kbs[0]
    others = [n for n in ranked if n != best]
    unheld = [t for t in words if not any(c[t] > 0 for c in counts.values())]
    if 2 * len(unheld) >= len(words):
        also = [n for n in others if any(counts[n][t] >= SUPPORT for t in words)]
        if also:
            return [best, *also], (f"{len(unheld)} of the question's {len(words)} words are "
                                   f"in no knowledge base, the others in {best} and "
                                   f"{', '.join(also)}"), shares
    if not any(held >= SUPPORT or (held > 0 and all(held >= LEAD * counts[n][t] for n in others))
               for t, held in counts[best].items()):
        return ranked, f"{best} leads on words few of its passages hold: all searched", shares
    rivals = [n for n in others
              if any(counts[n][t] >= SUPPORT and counts[best][t] <= 0 for t in words)]
    if rivals:
        return [best, *rivals], (f"{reason}; {', '.join(rivals)} also holds a word it "
                                 "lacks"), shares
    return kbs, reason, shares
