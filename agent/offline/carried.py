"""Does the sentence an answer opens with carry what the question asks?

Holding the question's words is not answering it. "When does the Harbor office open on
weekends?" shares every topic word with "The Harbor office is open on weekends for deliveries
only", which names no time; "What is the Wi-Fi password at the Berlin office?" shares all but
one with a sentence about the Shanghai office. Among the sentences ranked near the top, the
answer opens with the best one that names the question's anchors (in the sentence, its
headings or its paragraph) and holds a value of the kind asked for; when none does, the
answer is a refusal that says which of the two is missing.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent.offline.anchors import holds, named_in, subject_anchors
from agent.offline.ranking import Candidate, frame
from agent.offline.value_kinds import Kind, asked_kind, carries
from agent.state import Passage
from agent.text import Alternatives, norm

# How far down the ranking a sentence may come from to open the answer instead: the first
# five, scoring at least this share of the best (set beforehand, not tuned).
NEAR_TOP = 5
NEAR_SHARE = 0.6


@dataclass(frozen=True)
class Shortfall:
    """What no near-top sentence carries: an ``anchor`` the pool names elsewhere, or the
    ``kind`` of value asked for."""
    anchor: str | None = None
    kind: Kind | None = None


def choose_carrier(question: str, candidates: list[Candidate], passages: list[Passage],
                   alternatives: Alternatives | None = None
                   ) -> tuple[list[Candidate], Shortfall | None]:
    """``candidates`` with the best near-top sentence that carries what ``question`` asks
    moved first, or the ranking as it was and what none of them carries."""
    kind = asked_kind(question)
    texts = [p["title"] + " " + p["text"] for p in passages]
    # Only names the documents themselves write as names can be looked for sentence by
    # sentence; one held only through a translation ("National Day" / 国庆) is not.
    wanted = [a for a in subject_anchors(question) if any(named_in(t, a) for t in texts)]
    if not candidates or (kind is None and not wanted):
        return candidates, None
    top = candidates[0][0]
    lead = _paragraph(candidates[0], passages)
    # A sentence of the best one's paragraph continues its subject ("On Saturdays it opens
    # at 09:30" after "The Harbor office is open on weekends").
    near = [c for c in candidates[:NEAR_TOP] if c[0] >= top - (1 - NEAR_SHARE) * abs(top)
            or (lead and c[1] == candidates[0][1] and _paragraph(c, passages) == lead)]
    anchored = [c for c in near
                if all(holds(_context(c, passages), a, alternatives) for a in wanted)]
    if not anchored:
        missing = min(wanted, key=lambda a: sum(holds(_context(c, passages), a, alternatives)
                                                for c in near))
        return candidates, Shortfall(anchor=missing)
    fitting = [c for c in anchored if kind is None or carries(kind, c[2], question)]
    if not fitting:
        # A value in the same paragraph may still answer it ("It opens at 9:30."), in
        # words the ranking did not tie to the question: answer as ranked.
        if kind is not None and any(carries(kind, _paragraph(c, passages), question)
                                    for c in anchored):
            return candidates, None
        return candidates, Shortfall(kind=kind)
    best = fitting[0]
    return [best, *(c for c in candidates if c is not best)], None


def _context(c: Candidate, passages: list[Passage]) -> str:
    """What a sentence is said under: itself, its passage's title and headings, and the
    paragraph it stands in (a table's rows stand in the table)."""
    return " ".join([c[2], frame(passages[c[1] - 1]), _paragraph(c, passages)])


def _paragraph(c: Candidate, passages: list[Passage]) -> str:
    """The paragraph of its passage a sentence stands in, or ``""`` (a rendered table row)."""
    key = norm(c[2])[:40]
    blocks = passages[c[1] - 1]["text"].split("\n\n")
    return next((b for b in blocks if key and key in norm(b)), "")
