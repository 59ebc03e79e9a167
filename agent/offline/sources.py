"""The kind of document a question asks to be answered from.

"According to that runbook, what share of alert storms…", "what does the policy actually
say", "按公司规定，当时本来可以怎么处理": the asker names the document the answer comes
from by its kind. An incident report that mentions the policy ("the emergency clause of the
change-management policy would have allowed…") repeats the question's words best, yet it
is the policy's own rule that is asked for. A document is of a kind when its type (front
matter ``doc_type``), its title or its file name says so, in either language.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from agent.state import Passage

# Each kind of document and the words that name it, in questions and in titles and types.
_KINDS: dict[str, tuple[str, ...]] = {
    "policy": ("policy", "policies", "rule", "rules", "regulation", "regulations",
               "规定", "制度", "政策", "办法", "规范", "条例", "守则"),
    "runbook": ("runbook", "runbooks", "playbook", "playbooks", "预案", "操作手册", "处置手册"),
    "report": ("report", "postmortem", "post-mortem", "报告", "复盘"),
    "faq": ("faq", "faqs", "常见问题"),
    "guide": ("guide", "handbook", "manual", "指南", "指引", "手册"),
    "meeting_notes": ("minutes", "纪要"),
    "email": ("email", "e-mail", "邮件"),
}
_WORD = {w: kind for kind, words in _KINDS.items() for w in words}
_LATIN = "|".join(sorted((re.escape(w) for w in _WORD if w.isascii()), key=len, reverse=True))
_CJK = "|".join(sorted((re.escape(w) for w in _WORD if not w.isascii()), key=len, reverse=True))
_DET = r"(?:the|that|this|our|its|their|your|company|company's)\s+"
# "according to that runbook", "per the expense policy", "what does the policy actually
# say", "the handbook says", "按公司规定", "根据《变更管理制度》", "制度里怎么说".
_NAMED = re.compile(
    rf"\b(?:according\s+to|as\s+per|per)\s+(?:{_DET})?(?:[\w-]+\s+){{0,3}}?(?P<a>{_LATIN})\b"
    rf"|\bwhat\s+(?:does|do|did)\s+{_DET}(?:[\w-]+\s+){{0,3}}?(?P<b>{_LATIN})\s+"
    rf"(?:actually\s+|really\s+|exactly\s+)?say\b"
    rf"|\b(?P<c>{_LATIN})\s+(?:actually\s+|really\s+)?says\b"
    rf"|(?:按照|按|根据|依据|依照)(?:公司|我们|咱们)?的?《?[\u4e00-\u9fff]{{0,8}}?(?P<d>{_CJK})"
    rf"|(?P<e>{_CJK})》?(?:里|中|上)?(?:是)?(?:怎么|如何)(?:说|写|规定)",
    re.I)


class Source(NamedTuple):
    """A kind of document a question names as its source, and the word naming it."""

    kind: str  # a key of _KINDS: "runbook", "policy"
    word: str  # as the question says it, lowercased: "runbook", "规定"


def named_source(question: str) -> Source | None:
    """The kind of document ``question`` asks to be answered from ("runbook", "policy"),
    the last one it names when it names several ("The incident report says a runbook… .
    According to that runbook, …" asks the runbook), or ``None``."""
    found = [next(g for g in m.groups() if g) for m in _NAMED.finditer(question)]
    return Source(_WORD[found[-1].lower()], found[-1].lower()) if found else None


def of_kind(p: Passage, kind: str) -> bool:
    """Whether passage ``p``'s document is of ``kind``: its type, title or file name says
    so ("doc_type: runbook"; "On-call Handbook"; "change-management-policy.md")."""
    if p["doc_type"].lower() == kind:
        return True
    named = f"{p['title']} {p['doc_id']}".lower()
    return any((re.search(rf"(?<![a-z]){re.escape(w)}(?![a-z])", named) if w.isascii()
                else w in named) for w in _KINDS[kind])
