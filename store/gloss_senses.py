"""How a dictionary gloss of a Chinese word becomes English search terms (``store.crosslang``).

CC-CEDICT glosses a word in phrases: 报销 is "to submit an expense account", 健身 "to keep
fit; to work out", 年终奖 "year-end bonus". Read word by word, a gloss's parts became senses
on their own, and an English IT note on locked "accounts" held 报销. A gloss of several
words is therefore a sense only as a phrase (its words adjacent, as the keyword index and
the answer rules match a phrase), or through its words where one passage holds them all
(``together``: a head noun with its modifier); a gloss's lone head noun, or a light word
("keep", "out", "own"), is no sense.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from store.tokenize import STOPWORDS, tokens

# Words that name no topic alone: function words the stop list leaves (what "one's own",
# "by oneself", "sb else" leave once the placeholder is out), particles of phrasal verbs,
# and light verbs, whose sense is their object's ("keep fit", "take leave").
LIGHT = frozenset(("own", "else", "self", "same", "such", "out", "off", "up", "down", "over",
                   "away", "back", "about", "keep", "make", "take", "give", "get", "put",
                   "set", "have", "come"))


# A gloss pointing at a unit of time ("this year", "at this time"): a word that points and
# time nouns only.
_POINTING = frozenset(("this", "that", "these", "those"))
_TIMES = frozenset(("year", "years", "month", "months", "week", "weeks", "day", "days",
                    "quarter", "time", "morning", "afternoon", "evening", "night", "season",
                    "moment", "period"))


def gloss_senses(gloss: str) -> list[str]:
    """The English search terms a dictionary gloss of a Chinese word gives. A gloss of one
    word, alone or with function words ("apply for"), is that word, unless it is a light word
    that names no topic ("own", left of "one's own"; "keep"). A gloss of several words is a
    sense only as a phrase: the gloss whole, as the index holds it (its words adjacent), and
    the noun group after its last function word when that group still has a modifier
    ("expense account" of "submit an expense account", "business trip" of "go on an
    official or business trip"). Its words alone are other senses: 报销 ("submit an expense
    account") is no "accounts", 健身 ("keep fit", "work out") no "keep" or "out", 年终奖
    ("year-end bonus") no "year". A gloss pointing at a time ("this year" of 今年) is no
    sense either: documents write the date."""
    words = tokens(gloss)
    topic = [w for w in words if w not in STOPWORDS]
    if _POINTING & set(words) and topic and set(topic) <= _TIMES:
        # 今年 "this year", 本月 "this month": a time the asker points at, which documents
        # write as a date; the bare noun is any year ("20 days a year").
        return []
    if len(topic) == 1:
        # one word with its function words ("apply for", "stay at") is that word
        word = topic[0]
        return [word] if word not in LIGHT and len(word) > 2 else []
    if all(w in LIGHT for w in topic):
        return []
    out = [" ".join(words)]
    last = max((i for i, w in enumerate(words) if w in STOPWORDS), default=-1)
    if 0 <= last < len(words) - 2:
        out.append(" ".join(words[last + 1:]))
    return out


def together(phrase: str) -> tuple[str, ...]:
    """The words of a gloss phrase that must share a passage for it to be held word by word:
    the noun group after its last function word when that has two words or more (a head
    noun with its modifier: "expense account" of "submit an expense account"), else all
    the phrase's topic words ("apply", "reimbursement"). Light words and stop words are no
    part of it: "keep fit" has one topic word, so it is held only as the phrase."""
    words = tokens(phrase)
    last = max((i for i, w in enumerate(words) if w in STOPWORDS), default=-1)
    tail = words[last + 1:]
    group = tail if len(tail) > 1 else words
    return tuple(dict.fromkeys(w for w in group
                               if w not in STOPWORDS and w not in LIGHT and len(w) > 2))


def held_together(conn: Any, kb_ids: Sequence[int],
                  groups: Mapping[tuple[str, ...], Sequence[Sequence[str]]]
                  ) -> set[tuple[str, ...]]:
    """The ``groups`` of words one passage of the KBs holds all of: each group is given as
    the forms each of its words may take there ("account", "accounts")."""
    queries = {group: " & ".join("(" + " | ".join("'" + f.replace("'", "''") + "'"
                                                  for f in forms) + ")" for forms in words)
               for group, words in groups.items() if words and all(words)}
    if not queries:
        return set()
    keys = list(queries)
    rows = conn.execute(
        """
        WITH g AS (SELECT id, active_generation AS gen FROM knowledge_bases
                   WHERE id = ANY(%(kbs)s))
        SELECT i, EXISTS (SELECT 1 FROM chunks c JOIN g ON c.kb_id = g.id
                          AND c.generation = g.gen WHERE c.tsv @@ to_tsquery('simple', q))
        FROM unnest(%(queries)s::text[]) WITH ORDINALITY AS u(q, i)
        """, {"kbs": list(kb_ids), "queries": [queries[k] for k in keys]}).fetchall()
    return {keys[int(i) - 1] for i, held in rows if held}
