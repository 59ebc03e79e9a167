"""Questions that ask for a holder through a description: the role, or the organisation.

"Who is the chief executive of the company that acquired Pellucid Vision?" describes the
company (the first hop: the document that tells of the acquisition) and asks who holds a role
in it (the second hop: that document's sentence naming the role). Ranking by all of the
question's words prefers the description's sentence, which names no chief executive; the
role's sentence answers. "哪家公司的原总经理在2025年6月辞职？" asks for the organisation the
sentences describe: its name, which a report says in its title rather than beside the event
("公司…辞去总经理职务").
"""

from __future__ import annotations

import re

from agent.offline.ranking import Candidate
from agent.state import Passage, Sentence
from agent.text import content_terms, norm

# "Who is the chief executive of the company that …", "Who was the judge in the case …".
_EN_ROLE = re.compile(r"^\s*who\s+(?:is|was|are|were)\s+the\s+(?P<role>[a-z][a-z -]{2,40}?)\s+"
                      r"(?:of|in|at|for)\s+the\b.*\b(?:that|which|who|whose|where)\b", re.I)
# "收购了X的那家公司的董事长是谁": the role right before 是谁, after a description ending in 的.
_ZH_ROLE = re.compile(r"的(?:那|这)?(?:家|个|位|名)?[\u4e00-\u9fff]{0,6}?的"
                      r"(?P<role>[\u4e00-\u9fff]{2,6}?)(?:是谁|叫什么|是哪位)")
# "哪家公司…", "which company …": the organisation is asked; suffixes that end its name.
# Only as the subject, first in the question: "收购了哪家公司的股权" asks for another company
# than the report's own.
_ZH_WHICH_ORG = re.compile(r"^\s*(?:请问)?\s*哪(?:家|个|一家|一个)(?P<kind>公司|企业|医院|法院)")
_EN_WHICH_ORG = re.compile(r"^\s*which\s+(?P<kind>company|firm|business|hospital|court)\b",
                           re.I)
_ORG_NAME = {
    "公司": r"^.*?(?:股份有限公司|有限责任公司|有限公司|集团)",
    "企业": r"^.*?(?:股份有限公司|有限责任公司|有限公司|集团)",
    "医院": r"^.*?医院", "法院": r"^.*?法院",
    "company": r"^.*?\b(?:Inc\.|plc|Ltd\.?|Limited|Corporation|Corp\.|Holdings|Group)",
    "hospital": r"^.*?\bHospital\b", "court": r"^.*?\bCourt\b",
}
_ORG_NAME.update({"firm": _ORG_NAME["company"], "business": _ORG_NAME["company"]})
# How far down the ranking the role's sentence is looked for.
ROLE_WITHIN = 12


def asked_role(question: str) -> list[str]:
    """The words of the role a described holder is asked for ("chief executive"); ``[]``
    when the question does not ask that way."""
    m = _EN_ROLE.search(question) or _ZH_ROLE.search(question)
    return content_terms(m["role"]) if m else []


def role_first(question: str, candidates: list[Candidate]) -> list[Candidate]:
    """``candidates`` with the best sentence of the top document that holds every word of the
    asked role moved first; unchanged when none does."""
    role = asked_role(question)
    if not role or not candidates:
        return candidates
    top = candidates[0][1]
    for c in candidates[:ROLE_WITHIN]:
        if c[1] == top and all(t in c[3] or t in norm(c[2]) for t in role):
            return [c, *(x for x in candidates if x is not c)]
    return candidates


def asked_organisation(question: str, passages: list[Passage], n: int) -> Sentence | None:
    """For "哪家公司…" / "which company …": the name of the organisation that passage ``n``'s
    document is about, read from its title; None for other questions or titles."""
    m = _ZH_WHICH_ORG.match(question) or _EN_WHICH_ORG.match(question)
    if m is None:
        return None
    title = passages[n - 1]["title"].strip()
    name = re.match(_ORG_NAME[m["kind"].casefold()], title)
    return None if name is None else Sentence(text=name.group(0).strip(), cites=[n])
