"""Hard-wrapped paragraphs: lines broken at a fixed width are joined back into sentences.

Plain-text documents, e-mails and many exports wrap paragraphs at 70–80 columns (Chinese
ones at 30–40 characters), so a line break falls inside a sentence. Read as a sentence end,
it cuts the answering sentence into fragments ("Claims older than 180 days are" / "rejected
by the expense system."), and the fragment quoted holds either the subject or the value but
not both. A line break is a wrap, not an end, when:

- the line before it has no end punctuation (。！？.!?;；:：…) and is not structure (a heading,
  a table row, a fence); and
- the next line is prose (not blank, not a list item, heading, table row or quote), and
  - starts lower case ("are\\nrejected"), or
  - the line before ends mid-clause (a comma, 、, an opening bracket, a hyphen), or
  - the line before is as long as wrapped lines are: a short line without punctuation is a
    title or a label ("Wi-Fi networks", "放假安排"), a long one was cut by the width.

A Chinese wrap is joined without a space, a Latin one with one.
"""

from __future__ import annotations

import re

from store.tokenize import has_cjk

# A line that ends a sentence or announces what follows (closing quotes and emphasis aside).
_END_MARKS = frozenset("。！？!?.;；:：…")
_CLOSING = " \t”’」』\"')）]*_"
_MID_CLAUSE = frozenset(",，、(（[「『“-")
# Lines that are layout: list items, headings, table rows, quotes, fences, rules.
_STRUCTURE = re.compile(r"^\s*(?:[-*•·+]\s|\d{1,3}[.)、．]\s*|[（(]\d{1,2}[)）]|[①-⑳]|#|\||>|"
                        r"```|~~~|---|===|第[一二三四五六七八九十\d]{1,3}[步章节条]|"
                        # a "key: value" line ("owner: IT", "doc_type: faq")
                        r"[\w-]{1,30}[:：](?:\s|$))")
_FENCE = re.compile(r"^\s*(```|~~~)")
# How long a line must be to have been cut by the wrap width rather than end by itself:
# wrapped English text is 60–80 columns wide, wrapped Chinese 25–40 characters.
LATIN_WRAP_MIN = 45
CJK_WRAP_MIN = 18


def _width(line: str) -> int:
    return len(line.strip())


def _long(line: str) -> bool:
    return _width(line) >= (CJK_WRAP_MIN if has_cjk(line) else LATIN_WRAP_MIN)


def wraps(line: str, following: str) -> bool:
    """Whether the break between ``line`` and ``following`` falls inside a sentence."""
    before, after = line.rstrip(), following.strip()
    last = before.rstrip(_CLOSING)[-1:]
    if not last or not after or last in _END_MARKS:
        return False
    if (before.lstrip().startswith(("#", "|")) or _STRUCTURE.match(following)
            or "\t" in before.strip() or "\t" in after):  # tab-separated columns
        return False
    return after[0].islower() or before[-1] in _MID_CLAUSE or _long(before)


def _full_width(char: str) -> bool:
    """CJK punctuation (。，、「」) and full-width forms (（），：)."""
    return "\u3000" <= char <= "\u303f" or "\uff00" <= char <= "\uffef"


def _closed_up(last: str, first: str) -> bool:
    """Whether a wrap between these characters is joined without a space (Chinese text
    and its punctuation are; a Chinese word and a number or Latin word keep one)."""
    return (_full_width(last) or _full_width(first)
            or (has_cjk(last) and has_cjk(first)))


def unwrap(text: str) -> str:
    """``text`` with every line break that falls inside a sentence (see ``wraps``) joined:
    by a space between Latin words, by nothing between Chinese characters. Fenced code is
    left as it is."""
    lines = text.split("\n")
    out: list[str] = []
    fenced = False
    # The physical line before ``line`` (its width says whether it was cut), when it is
    # prose that may take the next line.
    previous: str | None = None
    for line in lines:
        if _FENCE.match(line) or fenced:
            fenced = fenced != bool(_FENCE.match(line))
            out.append(line)
            previous = None
            continue
        if previous is not None and wraps(previous, line):
            head, tail = out[-1].rstrip(), line.strip()
            glue = "" if _closed_up(head[-1], tail[0]) else " "
            out[-1] = head + glue + tail
        else:
            out.append(line)
        previous = line
    return "\n".join(out)
