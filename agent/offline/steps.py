"""Offline answers to "how do I…" / "怎么…": the procedure, not the document's intro.

A runbook's intro sentence usually matches such a question best word for word ("This runbook
describes how a service is deployed"), but the answer is the list of steps under a heading
such as "Deploy steps" or "立即止损". So for a procedural question the list items of the
passage that fits best are quoted in document order.
"""

from __future__ import annotations

import re

from agent.offline.layout import is_lead_in, is_question, quotable_units
from agent.offline.pointers import pointed_documents
from agent.offline.versions import superseded
from agent.state import Passage, Sentence
from agent.text import (
    ITEM_MARKER,
    LIST_ITEM,
    NUMBERED_ITEM,
    Alternatives,
    idf_weights,
    split_sentences,
    terms_of,
    weighted_share,
)

# Headings that announce a procedure (and, for the penalty, those that list pitfalls).
_PROCEDURE_HEADING = re.compile(
    r"(steps?|procedure|how to|how do|instructions|process|what to do|checklist|"
    r"步骤|流程|处置|处理|止损|操作|办理|排查|方法|措施|指南|怎么|如何)", re.I)
_NOT_PROCEDURE = re.compile(r"(missed|mistakes?|pitfalls?|don'?t|avoid|faq|常见问题|误区|注意事项|"
                            r"相关文档|related|see also|预防|prevention|触发条件|适用范围|scope)",
                            re.I)
MIN_ITEMS = 2
SUPERSEDED_PENALTY = 0.6
# A procedure is quoted whole: a cut list leaves the asker at a step that is not the last
# (these bound only a runaway list).
MAX_ITEMS = 20
MAX_CHARS = 4000
# Numbering marks a procedure ("带客户参观要走什么流程": the numbered visit steps, not the
# bulleted site rules that share its words). Halving it (0.1) let a follow-up about steps
# already taken reach the bullets about its case, but cost a held-out procedure answer.
NUMBERED_BONUS = 0.2
# How much of the question's weight a section's heading holds to name the list under it.
HEADING_SHARE = 0.5


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
              alternatives: Alternatives | None = None, *,
              named_by_heading: bool = False) -> list[Sentence] | None:
    """The steps answering a procedural question, each citing its passage, or ``None``
    when no passage of the best-fitting document holds a list of at least two items.

    Only the document that fits the question best (title, headings and text, plus its
    search rank) is considered: a list elsewhere in the pool is another procedure. With
    ``named_by_heading`` only a list whose heading holds most of the question's words
    counts ("访客预约怎么操作" and a section "访客预约步骤")."""
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
    for first, chain, items in _lists(passages, best_doc):
        held = set().union(*(sets[i] for i in chain))
        numbered = sum(1 for item, _ in items if NUMBERED_ITEM.match(item))
        heading = passages[first]["heading_path"][-1] if passages[first]["heading_path"] else ""
        # Of the question's words the list's passages hold (a question's own verb, "操作",
        # may be nowhere), the heading holds most.
        if named_by_heading and weighted_share(
                [t for t in terms if t in held], idf,
                terms_of(heading, terms, alternatives)) < HEADING_SHARE:
            continue
        # Within the document the question's words decide, not the search rank; lists
        # that hold them equally are taken in the document's order (what happens first).
        score = (weighted_share(terms, idf, held) + _heading_bonus(passages[first])
                 + (NUMBERED_BONUS if numbered >= MIN_ITEMS else 0.0))
        scored.append((round(score, 6), -passages[first]["chunk_id"], first, items))
    if not scored:
        return None
    items = max(scored)[3]
    out: list[Sentence] = []
    used = 0
    for item, i in items[:MAX_ITEMS]:
        if out and used + len(item) > MAX_CHARS:
            break
        out.append(Sentence(text=item, cites=[i + 1]))
        used += len(item)
    return out


def announced(p: Passage) -> bool:
    """Whether passage ``p``'s heading announces a procedure ("立即止损", "Deploy steps")."""
    return _heading_bonus(p) > 0


# A section heading numbered as a step: "1. 找到慢在哪里", "2、备份检查", "Step 3: Verify".
_NUMBERED_SECTION = re.compile(r"^\s*(?:step\s+)?(\d{1,2})\s*[.、:：)）]\s*(?P<name>\S.*)$", re.I)
_FENCED = re.compile(r"^\s*(```|~~~).*?^\s*\1[^\n]*$", re.M | re.S)
# A document outlined by its sections has at least this many, numbered from 1 on.
MIN_SECTIONS = 3


def outline(passages: list[Passage], doc_id: str) -> list[Sentence] | None:
    """A document written as numbered sections ("## 1. 找到慢在哪里", "## 2. 常见原因与处理",
    "## 3. 紧急处理"), as steps: each section's heading with its first point, in order, each
    citing its passage. A troubleshooting runbook is such a document: "怎么排查" asks for its
    course, not for the intro sentence that repeats the question's words. ``None`` unless
    the pool holds sections 1 to n of ``doc_id``, n at least ``MIN_SECTIONS``."""
    first: dict[int, tuple[int, str]] = {}  # section number: (passage index, its name)
    for i, p in enumerate(passages):
        m = (_NUMBERED_SECTION.match(p["heading_path"][-1])
             if p["doc_id"] == doc_id and p["heading_path"] else None)
        k = int(m.group(1)) if m else 0
        if m and (k not in first or p["chunk_id"] < passages[first[k][0]]["chunk_id"]):
            first[k] = (i, m.group("name").strip())
    if len(first) < MIN_SECTIONS or sorted(first) != list(range(1, len(first) + 1)):
        return None
    out = []
    for k in sorted(first):
        i, name = first[k]
        point = _first_point(passages[i]["text"])
        out.append(Sentence(text=f"{k}. {name}" + (f"：{point}" if point else ""),
                            cites=[i + 1]))
    return out


# An opening that says the sections below are the steps: "按以下步骤处理", "按本手册排查",
# "follow the steps below".
_ANNOUNCES_STEPS = re.compile(r"(?:以下|下列|如下)(?:步骤|流程|方法)|按本(?:手册|预案|流程|指南)|"
                              r"\b(?:following|these|below)\s+steps\b|\bsteps\s+below\b", re.I)


def in_section(p: Passage) -> bool:
    """Whether passage ``p`` stands under a numbered section heading of its document."""
    return bool(p["heading_path"] and _NUMBERED_SECTION.match(p["heading_path"][-1]))


def announces_sections(passages: list[Passage], doc_id: str) -> bool:
    """Whether ``doc_id``'s opening (a passage of it under no numbered section heading)
    says that the sections below are the steps to take."""
    return any(p["doc_id"] == doc_id and not in_section(p) and _ANNOUNCES_STEPS.search(p["text"])
               for p in passages)


def _first_point(text: str) -> str | None:
    """A section's first point: its first list item, sentence or table row that is not a
    lead-in, code left out."""
    units = quotable_units(_FENCED.sub("", text), split_sentences)
    return next((ITEM_MARKER.sub("", u.text, count=1).strip().rstrip("；;，,") for u in units
                 if not is_lead_in(u.text)), None)


def _lists(passages: list[Passage], doc_id: str) -> list[tuple[int, list[int],
                                                                list[tuple[str, int]]]]:
    """The lists of ``doc_id``'s passages with at least two items: (first passage index,
    the indexes it spans, its items with the index each is quoted from). A list the chunker
    cut at a chunk boundary (the next chunk of the same section starts where it stopped)
    is joined back, the overlap the chunker repeats taken once."""
    own = sorted((i for i, p in enumerate(passages) if p["doc_id"] == doc_id),
                 key=lambda i: passages[i]["chunk_id"])
    out: list[tuple[int, list[int], list[tuple[str, int]]]] = []
    previous: int | None = None
    for i in own:
        p, items = passages[i], list_items(passages[i]["text"])
        if previous is not None and out and out[-1][1][-1] == previous and items \
                and _continues(passages[previous], p):
            seen = {item for item, _ in out[-1][2]}
            out[-1][1].append(i)
            out[-1][2].extend((item, i) for item in items if item not in seen)
        elif items:
            out.append((i, [i], [(item, i) for item in items]))
        previous = i
    # A list of questions is an FAQ's, each answered under it: not a procedure.
    return [x for x in out if len(x[2]) >= MIN_ITEMS
            and sum(is_question(item) for item, _ in x[2]) * 2 < len(x[2])]


def _continues(before: Passage, after: Passage) -> bool:
    """Whether ``after`` is the next chunk of ``before``'s section and both sides of the
    cut are list items."""
    last = [line for line in before["text"].splitlines() if line.strip()][-1:]
    first = [line for line in after["text"].splitlines() if line.strip()][:1]
    return (after["chunk_id"] == before["chunk_id"] + 1
            and after["heading_path"] == before["heading_path"]
            and bool(last and first and LIST_ITEM.match(last[0]) and LIST_ITEM.match(first[0])))


# A step's lead: its first words up to a colon ("检查淘汰策略：…", "Lock and wipe: …"),
# short enough to name the step rather than explain it.
# A step may be its lead alone when its details are sub-items ("3. **审批**：" then "- …").
_LEAD = re.compile(r"^(?P<lead>[^:：。.;；]{2,40}?)\s*[:：]\s*(?:\S|$)")
# Steps longer than this together get a one-line summary of their leads first, so that the
# direct answer is within the first 200 characters.
SUMMARY_AFTER = 200


# A list item that opens with bold words: "2. **Build and tag** the release image".
_BOLD_START = re.compile(r"^\s*(?:\d{1,2}[.)、]|[-*•])\s+(?:\*\*|__)"
                         r"(?P<lead>[^*_]{2,40}?)(?:\*\*|__)")


def _bold_leads(passages: list[Passage]) -> dict[str, str]:
    """Each list item of ``passages`` that opens with bold words, as ``list_items`` quotes
    it, and those words: the author's own name for the step."""
    out: dict[str, str] = {}
    for p in passages:
        for line in p["text"].splitlines():
            m = _BOLD_START.match(line)
            if m:
                out[line.strip().replace("**", "").replace("__", "")] = m.group("lead").strip()
    return out


def summary(steps: list[Sentence], language: str, passages: list[Passage] | None = None
            ) -> Sentence | None:
    """The steps' leads on one line, in order ("检查淘汰策略；清理大 key；扩容"), citing
    the steps' passage, when every step has one and the steps run long; else ``None``. A
    step's lead is its words before a colon, or the words its document sets in bold at its
    start ("**Promote** to 100%: …", read in ``passages``)."""
    if len(steps) < MIN_ITEMS or sum(len(s["text"]) for s in steps) <= SUMMARY_AFTER:
        return None
    # Bullets under numbered steps are a step's details (the amounts each approver signs
    # for), not steps: the summary names the numbered steps only.
    numbered = [s for s in steps if NUMBERED_ITEM.match(s["text"])]
    top = numbered if len(numbered) >= MIN_ITEMS else steps
    bold = _bold_leads(passages or [])
    leads = []
    for s in top:
        m = _LEAD.match(ITEM_MARKER.sub("", s["text"], count=1))
        lead = m.group("lead").strip() if m else bold.get(s["text"])
        if lead is None:
            return None
        leads.append(lead)
    text = ("；" if language == "zh" else "; ").join(leads)
    cites = list(dict.fromkeys(n for s in steps for n in s["cites"]))
    return Sentence(text=text, cites=cites)
