"""Lists in documents: a lead-in ("入职当天请携带以下材料：", "check the following:") and the
items under it are one answer.

A sentence split sees each item alone, so an answer quoted "需要额外检查以下几点：" and then
one point, or one item of five when the question asked what they all are. A list question
("有哪些", "what are the") is answered with the whole list its best sentence belongs to,
lead-in first; an item is about what its lead-in announces (the lead-in alone is never a
quotable sentence: it says nothing by itself).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from agent.state import Passage, Sentence
from agent.text import ITEM_MARKER, LIST_ITEM, norm

# A line that announces what follows.
_LEAD_IN = re.compile(r"[:：]\s*(?:\*\*|__)?\s*$")
# Asking for every member of a set: "有哪些", "哪几项", "包括什么", "what are the", "list…",
# "which … are". Not "哪几天" / "哪一天" (a date) nor "what is".
ASKS_ALL = re.compile(
    r"(哪些|哪几(?![天日年月号点])|有什么|包括什么|包含什么|都有什么|都要什么|需要什么|"
    r"\bwhat (?:are|were)\b|\bwhich\b[^?]*\b(?:are|do|need|must|should)\b|\blist\b|"
    r"\bwhat (?:do|should|must) (?:i|we|you) (?:need to |have to )?(?!do\b)\w+|\ball the\b)",
    re.I)
MAX_ITEMS = 20
# Whole list answers stay readable in a chat message.
MAX_CHARS = 1500


@dataclass(frozen=True)
class ListBlock:
    lead_in: str | None
    items: tuple[str, ...]


def _clean(line: str) -> str:
    return line.strip().replace("**", "").replace("__", "")


@lru_cache(maxsize=256)
def list_blocks(text: str) -> tuple[ListBlock, ...]:
    """The lists of ``text``: runs of item lines (blank lines and indented continuation
    lines between items allowed), each with the line before it when that line ends with a
    colon. Cached: answer choice asks it once per sentence of a passage."""
    blocks: list[ListBlock] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        if not LIST_ITEM.match(lines[i]):
            i += 1
            continue
        before = next((lines[j] for j in range(i - 1, -1, -1) if lines[j].strip()), "")
        lead = _clean(before) if _LEAD_IN.search(before) and not LIST_ITEM.match(before) \
            else None
        items: list[str] = []
        while i < len(lines):
            line = lines[i]
            if LIST_ITEM.match(line):
                items.append(_clean(line))
            elif line.strip() and line[:1] in " \t" and items:
                items[-1] += " " + _clean(line)
            elif line.strip():
                break
            i += 1
        blocks.append(ListBlock(lead_in=lead, items=tuple(items)))
    return tuple(blocks)


@lru_cache(maxsize=256)
def _normed(text: str) -> tuple[tuple[ListBlock, str, tuple[str, ...]], ...]:
    """Each list of ``text`` with its lead-in and items normalized, for lookups by sentence."""
    return tuple((b, norm(b.lead_in or ""), tuple(norm(i) for i in b.items))
                 for b in list_blocks(text))


def block_of(text: str, sentence: str) -> ListBlock | None:
    """The list in ``text`` that ``sentence`` introduces or is an item of."""
    key = norm(sentence)
    if not key:
        return None
    for block, lead, items in _normed(text):
        if block.lead_in is not None and key in lead:
            return block
        if any(key in item for item in items):
            return block
    return None


def lead_in_of(text: str, sentence: str) -> str | None:
    """The lead-in of the list ``sentence`` is an item of, if any: what the item is about."""
    key = norm(sentence)
    if not key:
        return None
    for block, _, items in _normed(text):
        if block.lead_in is not None and any(key in i for i in items):
            return block.lead_in
    return None


# An item that adds to the one before it ("20000 元以上：还需财务总监审批", "Above CNY 1
# million: the CFO also signs") is only half an answer without that item.
_ADDS = re.compile(r"(还需|还要|也需|也要|另需|另外还|同时还|此外|\balso\b|\bin addition\b|"
                   r"\badditionally\b|\bas well\b)", re.I)


def previous_item(text: str, sentence: str) -> str | None:
    """The item before the one of ``text``'s lists that ``sentence`` is, if any (its
    marker and emphasis off)."""
    key = norm(sentence)
    if not key:
        return None
    for block, _, items in _normed(text):
        at = next((k for k, item in enumerate(items) if key in item), None)
        if at:
            return ITEM_MARKER.sub("", block.items[at - 1], count=1).strip()
    return None


def with_antecedents(sentences: list[Sentence], passages: list[Passage]) -> list[Sentence]:
    """``sentences`` with the item before each quoted item that adds to it ("还需…",
    "also…") put right before it: moved there when quoted later, else added."""

    def holds(text: str, x: Sentence) -> bool:
        return norm(text) in norm(x["text"]) or norm(x["text"]) in norm(text)

    rest = list(sentences)
    out: list[Sentence] = []
    while rest:
        s = rest.pop(0)
        if not s.get("note") and len(s["cites"]) == 1 and _ADDS.search(s["text"]):
            n = s["cites"][0]
            before = previous_item(passages[n - 1]["text"], s["text"])
            if before and not any(holds(before, x) for x in out):
                later = next((x for x in rest if holds(before, x)), None)
                if later is not None:
                    rest.remove(later)
                out.append(later or Sentence(text=before, cites=[n]))
        out.append(s)
    return out


def complete_lists(sentences: list[Sentence], passages: list[Passage],
                   question: str) -> list[Sentence]:
    """For a question that asks for every member of a set, ``sentences`` with the first
    quoted list item grown into its whole list (lead-in first) and put first; a sentence the
    list already holds is dropped. Other questions' sentences are returned as they are."""
    if not ASKS_ALL.search(question):
        return sentences
    for k, s in enumerate(sentences):
        if s.get("note") or len(s["cites"]) != 1:
            continue
        n = s["cites"][0]
        block = block_of(passages[n - 1]["text"], s["text"])
        if block is None or len(block.items) < 2:
            continue
        grown = _render(block, n)
        held = [norm(x["text"]) for x in grown]
        rest = [x for j, x in enumerate(sentences) if j != k
                and not any(norm(x["text"]) in h for h in held)]
        return [*grown, *rest]
    return sentences


def _render(block: ListBlock, n: int) -> list[Sentence]:
    out = [Sentence(text=block.lead_in, cites=[n])] if block.lead_in else []
    used = sum(len(x["text"]) for x in out)
    for item in block.items[:MAX_ITEMS]:
        if used + len(item) > MAX_CHARS:
            break
        out.append(Sentence(text=item, cites=[n]))
        used += len(item)
    return out
