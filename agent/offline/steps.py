"""Offline answers to "how do I…" / "怎么…": the procedure, not the document's intro.

A runbook's intro sentence usually matches such a question best word for word ("This runbook
describes how a service is deployed"), but the answer is the list of steps under a heading
such as "Deploy steps" or "立即止损". So for a procedural question the list items of the
passage that fits best are quoted in document order.
"""

from __future__ import annotations

import re

from agent.offline.pointers import pointed_documents
from agent.offline.versions import superseded
from agent.state import Passage, Sentence
from agent.text import LIST_ITEM, Alternatives, idf_weights, terms_of, weighted_share

# A list item: "1." "2)" "3、" "(4)" "（5）" or a bullet.
_NUMBERED = re.compile(r"^\s*(?:\d{1,2}[.)]\s+|\d{1,2}、\s*|[（(]\d{1,2}[)）]\s*)\S")
# Headings that announce a procedure (and, for the penalty, those that list pitfalls).
_PROCEDURE_HEADING = re.compile(
    r"(steps?|procedure|how to|how do|instructions|process|what to do|checklist|"
    r"步骤|流程|处置|处理|止损|操作|办理|排查|方法|措施|指南|怎么|如何)", re.I)
_NOT_PROCEDURE = re.compile(r"(missed|mistakes?|pitfalls?|don'?t|avoid|faq|常见问题|误区|注意事项|"
                            r"相关文档|related|see also|预防|prevention|触发条件|适用范围|scope)",
                            re.I)
MIN_ITEMS = 2
SUPERSEDED_PENALTY = 0.6
MAX_ITEMS = 8
MAX_CHARS = 900


def list_items(text: str) -> list[str]:
    """The list items of ``text`` in order (markdown emphasis dropped, marker kept)."""
    items = []
    for line in text.splitlines():
        if LIST_ITEM.match(line):
            items.append(line.strip().replace("**", "").replace("__", ""))
    return items


def _heading_bonus(p: Passage) -> float:
    heading = p["heading_path"][-1] if p["heading_path"] else ""
    if _NOT_PROCEDURE.search(heading):
        return -0.4
    return 0.3 if _PROCEDURE_HEADING.search(heading) else 0.0


def procedure(terms: list[str], passages: list[Passage],
              alternatives: Alternatives | None = None) -> list[Sentence] | None:
    """The steps answering a procedural question, each citing its passage, or ``None``
    when no passage of the best-fitting document holds a list of at least two items.

    Only the document that fits the question best (title, headings and text, plus its
    search rank) is considered: a list elsewhere in the pool is another procedure."""
    if not passages or not terms:
        return None
    sets = [terms_of(" ".join([p["title"], *p["heading_path"], p["text"]]), terms, alternatives)
            for p in passages]
    n = len(passages)
    idf = idf_weights(terms, sets)
    old = superseded(passages)
    # A superseded version's procedure is not the one to follow (see agent.offline.versions).
    fits = [weighted_share(terms, idf, held) + 0.5 / (1 + p["rank"])
            - (SUPERSEDED_PENALTY if p["doc_id"] in old else 0.0)
            for held, p in zip(sets, passages, strict=True)]
    best_doc = passages[max(range(n), key=lambda i: (fits[i], -i))]["doc_id"]
    # "具体步骤见《…》手册": the steps are in the document the best one points to, when that
    # document is in the pool, is about the question and lists steps.
    for d in pointed_documents(passages, best_doc):
        if any(p["doc_id"] == d and sets[i] & set(terms)
               and len(list_items(p["text"])) >= MIN_ITEMS for i, p in enumerate(passages)):
            best_doc = d
            break
    scored = []
    for i, p in enumerate(passages):
        items = list_items(p["text"])
        if p["doc_id"] != best_doc or len(items) < MIN_ITEMS:
            continue
        numbered = sum(1 for line in p["text"].splitlines() if _NUMBERED.match(line))
        # Within the document the question's words decide, not the search rank; lists
        # that hold them equally are taken in the document's order (what happens first).
        score = (weighted_share(terms, idf, sets[i]) + _heading_bonus(p)
                 + (0.2 if numbered >= MIN_ITEMS else 0.0))
        scored.append((round(score, 6), -p["chunk_id"], i, items))
    if not scored:
        return None
    _, _, i, items = max(scored)
    out: list[Sentence] = []
    used = 0
    for item in items[:MAX_ITEMS]:
        if out and used + len(item) > MAX_CHARS:
            break
        out.append(Sentence(text=item, cites=[i + 1]))
        used += len(item)
    return out


# A step's lead: its first words up to a colon ("检查淘汰策略：…", "Lock and wipe: …"),
# short enough to name the step rather than explain it.
_MARKER = re.compile(r"^\s*(?:\d{1,2}[.)]\s+|\d{1,2}、\s*|[（(]\d{1,2}[)）]\s*|[-*•·]\s+)")
_LEAD = re.compile(r"^(?P<lead>[^:：。.;；]{2,40}?)\s*[:：]\s*\S")
# Steps longer than this together get a one-line summary of their leads first, so that the
# direct answer is within the first 200 characters.
SUMMARY_AFTER = 200


def summary(steps: list[Sentence], language: str) -> Sentence | None:
    """The steps' leads on one line, in order ("检查淘汰策略；清理大 key；扩容"), citing
    the steps' passage, when every step has one and the steps run long; else ``None``."""
    if len(steps) < MIN_ITEMS or sum(len(s["text"]) for s in steps) <= SUMMARY_AFTER:
        return None
    leads = []
    for s in steps:
        m = _LEAD.match(_MARKER.sub("", s["text"], count=1))
        if m is None:
            return None
        leads.append(m.group("lead").strip())
    text = ("；" if language == "zh" else "; ").join(leads)
    cites = list(dict.fromkeys(n for s in steps for n in s["cites"]))
    return Sentence(text=text, cites=cites)
