"""One clean form of the asker's text, made once before any rule or model sees it.

Rules match spaces, punctuation and letters; text pasted from documents, PDFs or phones
brings forms they do not expect: no-break and ideographic spaces, line and paragraph
separators, tabs, zero-width and direction marks, control bytes (a NUL that Postgres
refuses to store), lone surrogates. ``normalize_question`` folds compatibility forms with
NFKC (as the search index folds the documents, so full-width "Ｑ３" still finds "Q3"), turns
every kind of whitespace into one space, and drops the invisible characters.
"""

from __future__ import annotations

import unicodedata

from agent.errors import QuestionTooLongError

# Slack's own message cut (bot.slack.translate) is the same size: a question the surface
# passes on is never refused here. Counted on the text as typed, as that cut counts it.
MAX_QUESTION_CHARS = 4000

# Control (Cc), format (Cf: zero-width space and joiners, direction marks, soft hyphen,
# byte-order mark) and surrogate (Cs) characters carry no words.
_INVISIBLE = frozenset(("Cc", "Cf", "Cs"))


def normalize_question(text: str, *, max_chars: int = MAX_QUESTION_CHARS) -> str:
    """``text`` with compatibility forms folded, whitespace runs as one space, invisible
    characters removed, ends stripped. Raises ``QuestionTooLongError`` over ``max_chars``."""
    if len(text) > max_chars:
        raise QuestionTooLongError(len(text), max_chars)
    # Surrogates first: NFKC would carry them through and encoding them later fails.
    text = "".join(ch for ch in text if not 0xD800 <= ord(ch) <= 0xDFFF)
    text = unicodedata.normalize("NFKC", text)
    kept = []
    for ch in text:
        if ch.isspace():
            kept.append(" ")
        elif unicodedata.category(ch) not in _INVISIBLE:
            kept.append(ch)
    return " ".join("".join(kept).split())
