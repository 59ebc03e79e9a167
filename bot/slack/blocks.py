"""Block Kit builders: pure functions from answers to Slack messages.

Text that comes from documents (answers are built from them) is data. It is escaped
(``&``, ``<``, ``>``) so ``<!channel>``, ``<!here>``, ``<@U…>`` and ``<http://…>`` show
as text, and put in ``verbatim`` text objects so Slack does not auto-link or parse
mentions in it. Messages are posted with unfurling off (see ``turns``).

Limits (Slack's): 3,000 characters per section text, 50 blocks per message, 75 characters
of button text, 2,000 characters of button value.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from bot.conversations import texts as m
from bot.conversations.citations import CitationLike, kb_of, source_link

SECTION_LIMIT = 3000
BLOCKS_LIMIT = 50
BUTTON_TEXT_LIMIT = 75
BUTTON_VALUE_LIMIT = 2000
MAX_OPTIONS = 3
CLARIFY_ACTION_PREFIX = "clarify_option_"

Block = dict[str, Any]


@dataclass(frozen=True)
class Message:
    """One Slack message: fallback ``text`` (notifications) and ``blocks``."""

    text: str
    blocks: list[Block] = field(default_factory=list)


def escape(text: str) -> str:
    """Slack's control characters as entities: nothing in ``text`` can ping or link."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def split_text(text: str, limit: int = SECTION_LIMIT) -> list[str]:
    """Cut escaped ``text`` into pieces of at most ``limit`` characters, preferring
    paragraph, then line, then word boundaries, and never cutting an ``&…;`` entity."""
    pieces: list[str] = []
    rest = text.strip()
    while len(rest) > limit:
        window = rest[:limit]
        cut = max(window.rfind("\n\n"), -1)
        if cut < limit // 2:
            cut = window.rfind("\n")
        if cut < limit // 2:
            cut = window.rfind(" ")
        if cut < limit // 2:
            cut = limit
            amp = window.rfind("&", max(0, limit - 5))
            if amp != -1 and ";" not in window[amp:]:
                cut = amp
        pieces.append(rest[:cut].rstrip())
        rest = rest[cut:].lstrip()
    if rest:
        pieces.append(rest)
    return pieces


def _mrkdwn(text: str) -> Block:
    return {"type": "mrkdwn", "text": text, "verbatim": True}


def _section(text: str) -> Block:
    return {"type": "section", "text": _mrkdwn(text)}


def _context(text: str) -> Block:
    return {"type": "context", "elements": [_mrkdwn(text[:SECTION_LIMIT])]}


def citation_line(c: CitationLike, link_hosts: Sequence[str] = ()) -> str:
    """``[n] <url|title>`` for a source that may be linked (``source_link``), else
    ``[n] title``: the document's title only, never its path."""
    title = escape(c.title.strip() or "untitled").replace("|", "¦")
    url = source_link(c.source, link_hosts)
    kb = kb_of(c)
    where = f" ({escape(kb)})" if kb else ""
    return (f"[{c.n}] <{url}|{title}>" if url else f"[{c.n}] {title}") + where


def pack(blocks: Sequence[Block], fallback: str,
         limit: int = BLOCKS_LIMIT, continued: str = "") -> list[Message]:
    """Split ``blocks`` into messages of at most ``limit`` blocks each."""
    out: list[Message] = []
    for i in range(0, max(len(blocks), 1), limit):
        chunk = list(blocks[i:i + limit])
        text = fallback if i == 0 else f"{continued} {fallback}".strip()
        out.append(Message(text=text[:SECTION_LIMIT], blocks=chunk))
    return out


def answer_messages(text: str, citations: Iterable[CitationLike], *, lang: str,
                    notes: Sequence[str] = (), block_limit: int = BLOCKS_LIMIT,
                    section_limit: int = SECTION_LIMIT,
                    link_hosts: Sequence[str] = ()) -> list[Message]:
    """An answer with numbered sources (``citation_line``), split within Slack's limits.

    ``text`` and citation titles are raw document-derived text and get escaped here;
    ``notes`` are the surface's own words (already safe) shown as context lines.
    """
    body = escape(text)
    blocks: list[Block] = [_section(piece) for piece in split_text(body, section_limit)]
    lines = [citation_line(c, link_hosts) for c in sorted(citations, key=lambda c: c.n)]
    if lines:
        blocks.append({"type": "divider"})
        sources = f"*{m.pick(m.SOURCES, lang)}*\n" + "\n".join(lines)
        blocks.extend(_section(piece) for piece in split_text(sources, section_limit))
    blocks.extend(_context(note) for note in notes)
    fallback = split_text(body, section_limit)[0] if body.strip() else m.pick(m.SOURCES, lang)
    return pack(blocks, fallback, block_limit, m.pick(m.CONTINUED, lang))


def status_message(line: str) -> Message:
    """The live status line shown while the agent works (``line`` is the agent's words)."""
    safe = escape(line)
    return Message(text=safe, blocks=[_context(f":hourglass_flowing_sand: {safe}")])


def notice_message(text: str, notes: Sequence[str] = ()) -> Message:
    """A short message in the surface's own words (help, apology, restricted...)."""
    return Message(text=text, blocks=[_section(text), *(_context(n) for n in notes)])


def clarify_message(question: str, options: Sequence[str], *, lang: str) -> Message:
    """The clarifying question with up to three option buttons and a free-text hint."""
    q = escape(question)
    blocks: list[Block] = [_section(q)]
    buttons = []
    for i, option in enumerate(list(options)[:MAX_OPTIONS]):
        label = option if len(option) <= BUTTON_TEXT_LIMIT else option[:BUTTON_TEXT_LIMIT - 1] + "…"
        buttons.append({
            "type": "button",
            "action_id": f"{CLARIFY_ACTION_PREFIX}{i}",
            "text": {"type": "plain_text", "text": label, "emoji": False},
            "value": option[:BUTTON_VALUE_LIMIT],
        })
    if buttons:
        blocks.append({"type": "actions", "block_id": "ragbot_clarify", "elements": buttons})
    blocks.append(_context(m.pick(m.CLARIFY_HINT, lang)))
    return Message(text=q, blocks=blocks)


def clarify_chosen(original: Sequence[Block], option: str, *, lang: str) -> Message:
    """The clarify message after a click: the buttons and hint removed, the choice shown.
    ``original`` is the message's blocks as Slack returns them (already escaped)."""
    kept = [b for b in original if b.get("type") == "section"]
    chosen = m.pick(m.CLARIFY_CHOSEN, lang, option=escape(option))
    fallback = str(kept[0].get("text", {}).get("text", "")) if kept else chosen
    return Message(text=fallback or chosen, blocks=[*kept, _context(chosen)])
