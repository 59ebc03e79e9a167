"""Answers and prompts as Teams activities (pure functions: JSON-able dicts in the Bot
Framework wire format, built with the Teams SDK's models where it has them).

An answer is one message: the text with its ``[n]`` markers, a citation entity per source
(name at most 80 characters, abstract at most 160, at most 20 sources), the "AI generated"
label and Teams' feedback buttons. Document text is data: ``<`` and ``>`` are escaped, so
an ``<at>`` in a document shows as text and never mentions anyone (a mention also needs an
entity, which the bot never adds), and no HTML renders.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from bot.conversations.citations import CitationLike, kb_of, source_link

MAX_CITATIONS = 20
NAME_LIMIT = 80
ABSTRACT_LIMIT = 160
CLARIFY_VERB = "ragbot.clarify"

_SENTENCE = re.compile(r"[^.!?。！？\n]*[.!?。！？]?")


def escape(text: str) -> str:
    """Document or answer text as literal text in a Teams message."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _cut(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"


def abstract_for(n: int, answer: str, fallback: str) -> str:
    """The answer's sentence that cites ``[n]`` (what the source supports), else
    ``fallback``; cut to Teams' 160 characters."""
    marker = f"[{n}]"
    for sentence in _SENTENCE.findall(answer):
        if marker in sentence:
            plain = re.sub(r"\s*\[\d+\]", "", sentence).strip()
            if plain:
                return _cut(plain, ABSTRACT_LIMIT)
    return _cut(fallback or "—", ABSTRACT_LIMIT)


def text_message(text: str) -> dict[str, Any]:
    """A plain message of the bot's own words (help, notices, apologies)."""
    from microsoft_teams.api.activities import MessageActivityInput

    return _dump(MessageActivityInput(text=text))


def answer_message(text: str, citations: Iterable[CitationLike], *, notes: Sequence[str] = (),
                   link_hosts: Sequence[str] = (), ai_label: bool = True,
                   feedback: bool = True) -> dict[str, Any]:
    """The answer: escaped text with ``[n]`` markers, citation entities, AI label and
    feedback buttons. Only markers of the first 20 sources keep their entity."""
    from microsoft_teams.api.activities import MessageActivityInput
    from microsoft_teams.api.models import CitationAppearance

    body = escape(text)
    if notes:
        body = body + "\n\n" + "\n\n".join(f"_{escape(n)}_" for n in notes)
    activity = MessageActivityInput(text=body)
    for c in sorted(citations, key=lambda c: c.n)[:MAX_CITATIONS]:
        kb = kb_of(c)
        title = c.title.strip() or "untitled"
        # a long title is cut before the KB's name, so the KB stays visible
        name = (_cut(_cut(title, max(NAME_LIMIT - len(kb) - 3, 10)) + f" ({kb})", NAME_LIMIT)
                if kb else _cut(title, NAME_LIMIT))
        activity.add_citation(c.n, CitationAppearance(
            name=name, abstract=abstract_for(c.n, text, c.title),
            url=source_link(c.source, link_hosts)))
    if ai_label:
        activity.add_ai_generated()
    if feedback:
        activity.add_feedback()
    return _dump(activity)


def clarify_card(question: str, options: Sequence[str], *, run: dict[str, Any],
                 hint: str) -> dict[str, Any]:
    """The clarify question as an Adaptive Card: one ``Action.Execute`` per option, whose
    data carries the run (thread key, turn) and the choice."""
    card = {
        "type": "AdaptiveCard",
        "$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
        "version": "1.5",
        "body": [{"type": "TextBlock", "text": question, "wrap": True},
                 {"type": "TextBlock", "text": hint, "wrap": True, "isSubtle": True,
                  "size": "Small"}],
        "actions": [{"type": "Action.Execute", "title": _cut(option, 80),
                     "verb": CLARIFY_VERB, "data": {**run, "choice": option}}
                    for option in options[:5]],
    }
    return {"type": "message", "attachments": [card_attachment(card)]}


def chosen_card(question: str, chosen: str) -> dict[str, Any]:
    """What a clicked clarify card becomes: the question and the choice, no buttons."""
    return {"type": "AdaptiveCard",
            "$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
            "version": "1.5",
            "body": [{"type": "TextBlock", "text": question, "wrap": True},
                     {"type": "TextBlock", "text": chosen, "wrap": True, "weight": "Bolder"}]}


def card_attachment(card: dict[str, Any]) -> dict[str, Any]:
    return {"contentType": "application/vnd.microsoft.card.adaptive", "content": card}


def card_invoke_response(card: dict[str, Any]) -> dict[str, Any]:
    """The body of the HTTP answer to ``adaptiveCard/action`` that replaces the card."""
    return {"statusCode": 200, "type": "application/vnd.microsoft.card.adaptive",
            "value": card}


def informative(text: str, sequence: int, stream_id: str | None) -> dict[str, Any]:
    """A 1:1 streaming update (a typing activity with ``streamType: informative``)."""
    from microsoft_teams.api.activities import TypingActivityInput
    from microsoft_teams.api.models import ChannelData

    update = TypingActivityInput().with_text(text).with_channel_data(
        ChannelData(stream_type="informative"))
    if stream_id:
        update = update.with_id(stream_id)
    return _dump(update.add_stream_update(sequence))


def streaming(text: str, sequence: int, stream_id: str) -> dict[str, Any]:
    """A 1:1 streaming update with the answer's text so far (``streamType: streaming``),
    escaped as the final answer is."""
    from microsoft_teams.api.activities import TypingActivityInput
    from microsoft_teams.api.models import ChannelData

    update = TypingActivityInput().with_text(escape(text)).with_channel_data(
        ChannelData(stream_type="streaming")).with_id(stream_id)
    return _dump(update.add_stream_update(sequence))


def stream_final(activity: dict[str, Any], stream_id: str) -> dict[str, Any]:
    """``activity`` (a message) as the final message of stream ``stream_id``."""
    entities = [e for e in activity.get("entities") or [] if e.get("type") != "streaminfo"]
    entities.append({"type": "streaminfo", "streamId": stream_id, "streamType": "final"})
    channel_data = {**(activity.get("channelData") or {}), "streamId": stream_id,
                    "streamType": "final"}
    return {**activity, "id": stream_id, "entities": entities, "channelData": channel_data}


def _dump(model: Any) -> dict[str, Any]:
    data: dict[str, Any] = model.model_dump(mode="json", by_alias=True, exclude_none=True)
    return data
