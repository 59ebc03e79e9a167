"""Two current documents that give different values for what was asked.

"How many days of paid leave?": the handbook says 10, the HR FAQ says 12. Quoting the better
scored one hides the conflict and may be the wrong one; the asker is better served by both,
each with its citation, and a word that they disagree. Read from the sentences alone: two
documents' best sentences hold the same question words and each a value of the kind the
question asks for, and the values differ.
"""

from __future__ import annotations

import re

from agent import messages
from agent.offline.asked import value_pattern
from agent.offline.ranking import Candidate
from agent.offline.versions import periods
from agent.state import Passage, Sentence

# How close in score the second document's sentence must be to the best one (both answer
# the question about equally well), and how far down the ranking it is looked for.
MARGIN = 0.15
WITHIN = 6


def _values(pattern: re.Pattern[str], sentence: str) -> set[str]:
    return {re.sub(r"[\s,]", "", m.group(0)).lower() for m in pattern.finditer(sentence)
            if any(ch.isdigit() for ch in m.group(0))}


def disagreement(question: str, terms: list[str], candidates: list[Candidate],
                 passages: list[Passage], *, old: set[str], language: str
                 ) -> list[Sentence] | None:
    """A notice and the two sentences, each citing its passage, when the best sentence and
    one from another current document (not in ``old``, the superseded) answer the question
    with different values; ``None`` otherwise."""
    # Only a question that asks for a value ("how many", "几天", "what share") can be told
    # two values: numbers in sentences answering "which city" are about something else.
    pattern = value_pattern(question)
    if not candidates or pattern is None:
        return None
    best = candidates[0]
    first = _values(pattern, best[2])
    if not first:
        return None
    asked = set(terms)
    for c in candidates[1:WITHIN]:
        if best[0] - c[0] > MARGIN:
            break
        if passages[c[1] - 1]["doc_id"] in (passages[best[1] - 1]["doc_id"], *old):
            continue
        second = _values(pattern, c[2])
        # The same question words and the same period: the same fact, told differently.
        if (not second or second & first or (c[3] & asked) != (best[3] & asked)
                or periods(c[2]) != periods(best[2])):
            continue
        lang = "zh" if language == "zh" else "en"
        return [Sentence(text=messages.DISAGREE[lang], cites=[], note=True),
                Sentence(text=best[2], cites=[best[1]]), Sentence(text=c[2], cites=[c[1]])]
    return None
