"""Which of the conversation's knowledge bases this turn searches (called by ``route``).

The offline rule (``agent.kb_route``) scores each KB from what it holds of the question's
words, their translations and glossary synonyms, and its description; an LLM engine may name
the KBs in its route reply instead. A follow-up stays with the KBs of the thread's latest
answered turn unless the asker's own words single out another KB (a topic change). A reply
to a clarification whose options were KBs searches the KB it names.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from agent.kb_route import KbEvidence, choose, gloss_weights
from agent.state import GraphState, KbChoice, KbOption, Understanding
from agent.text import content_terms, norm

if TYPE_CHECKING:
    from agent.context import RunContext

_ABOUT_CHARS = 300
# A Latin word, or a run of Chinese characters (the rewrite keeps an ellipsis's run whole).
_WORDS = re.compile(r"[a-z0-9]+|[\u3400-\u9fff]+")


def kb_options(ctx: RunContext, u: Understanding) -> tuple[list[KbOption], KbChoice]:
    """The conversation's KBs with their shares of the question, and the offline pick."""
    from store.kb import get_kb
    from store.kb_profile import profiles
    from store.kb_vocab import held_counts

    terms = content_terms(u["query"])
    alternatives = u.get("translated_terms", {})
    weight = gloss_weights(terms, alternatives)
    evidence: list[KbEvidence] = []
    abouts: dict[str, str] = {}
    with ctx.pool.connection() as conn:
        about = profiles(conn, list(ctx.kbs))
        for name in ctx.kbs:
            kb = get_kb(conn, name)
            phrases = [*terms, *(a for t in terms for a in alternatives.get(t, []))]
            passages, held = held_counts(conn, kb.id, phrases, ctx.principals)
            profile = about.get(name)
            abouts[name] = profile.text[:_ABOUT_CHARS] if profile else ""
            words = set(content_terms(profile.description + " " + profile.summary)
                        ) if profile else set()
            evidence.append(KbEvidence(
                name=name, passages=passages,
                held={t: max([float(held.get(t, 0)),
                              *(weight[a] * held.get(a, 0) for a in alternatives.get(t, []))])
                      for t in terms},
                described=frozenset(t for t in terms
                                    if t in words or any(norm(a) in words
                                                         for a in alternatives.get(t, [])))))
    kbs, reason, shares = choose(evidence, terms, ctx.kbs)
    options = [KbOption(name=n, about=abouts[n], share=shares[n]) for n in ctx.kbs]
    return options, KbChoice(kbs=kbs, reason=reason, shares=shares)


def settle(state: GraphState, ctx: RunContext, u: Understanding, offline: KbChoice,
           named: list[str] | None) -> KbChoice:
    """The turn's KBs: a clarified KB, else the engine's named ones, else the offline pick;
    a follow-up keeps the thread's KBs unless the asker's own words point clearly elsewhere
    (``follow_up_choice``)."""
    labels = state.get("kb_labels") or {}
    reply = (state.get("clarify_reply") or "").strip()
    if reply and labels:
        chosen = [kb for label, kb in labels.items()
                  if norm(reply) in (norm(label), norm(kb))]
        if chosen:
            return KbChoice(kbs=chosen[:1], reason="the asker chose this knowledge base",
                            shares=offline["shares"])
    valid = [k for k in dict.fromkeys(named or []) if k in ctx.kbs]
    choice = (KbChoice(kbs=valid, reason="named by the route model", shares=offline["shares"])
              if valid else offline)
    before = thread_kbs(state, ctx.kbs)
    if not u["is_followup"] or not before or valid:
        return choice
    # The rewrite borrows the earlier turns' words, which pull towards the thread's KBs: the
    # asker's own words decide whether the topic moved.
    _, own = kb_options(ctx, Understanding(**{**u, "query": state["question"]}))
    return follow_up_choice(before, own, choice["shares"],
                            own_words=len(content_terms(state["question"])),
                            points_back=stands_for_earlier(state["question"], u["query"]))


def stands_for_earlier(question: str, rewrite: str) -> bool:
    """Whether the rewrite put the thread's topic in place of one of the asker's words (a
    pronoun: "Can I carry it over?" -> "Can I carry 年假 over?") rather than only adding it
    (an ellipsis keeps every word). The question then asks about the thread's topic, so its
    other words say what is asked of it, not where to look."""
    said = norm(rewrite)
    latin = set(re.findall(r"[a-z0-9]+", said))
    return any(w not in (latin if w.isascii() else said) for w in _WORDS.findall(norm(question)))


def thread_kbs(state: GraphState, kbs: Sequence[str]) -> list[str]:
    """The KBs a follow-up stays with: those searched by the thread's latest turn that
    answered, the turn its rewrite borrows the topic from (``agent.offline.topic``). A refused
    turn lends none (its words were not in the KBs, so where they led says nothing of the
    thread's topic), nor does a reply that searched nothing; [] when no turn answered."""
    for turn in reversed(state.get("history") or []):
        if turn["refused"]:
            continue
        if "kbs" not in turn:  # stored before turns kept their KBs: the latest turn's
            return [k for k in state.get("kbs") or [] if k in kbs]
        if turn["kbs"]:
            return [k for k in turn["kbs"] if k in kbs]
    return []


def follow_up_choice(before: list[str], own: KbChoice, shares: dict[str, float], *,
                     own_words: int, points_back: bool = False) -> KbChoice:
    """A follow-up's KBs from the thread's (``before``) and the offline pick on the asker's
    ``own_words`` topic words (``own``). They move it only when at least two of them single
    out one KB outside the thread's: the topic changed ("那出差住宿标准是多少？" after a VPN
    question). A weaker sign widens the search instead of leaving the topic: one word, in an
    ellipsis that keeps the earlier question's frame ("那保修呢？" after a broken laptop,
    where "warranty" alone points to the product returns policy), two other KBs picked
    together by a few generic words ("who signs off on it?"), or any words of a question
    whose pronoun stands for the thread's topic (``points_back``: "Can I carry it over to
    next year?" after annual leave asks about the leave, though "carry over" and "year" fit
    another KB's documents); the thread's KBs come first. Otherwise the follow-up stays."""
    elsewhere = [k for k in own["kbs"] if k not in before]
    if len(own["kbs"]) == 1 and elsewhere and own_words >= 2 and not points_back:
        return KbChoice(kbs=own["kbs"], reason="topic changed: " + own["reason"],
                        shares=own["shares"])
    if len(own["kbs"]) <= 2 and len(elsewhere) == len(own["kbs"]):
        return KbChoice(kbs=[*before, *elsewhere],
                        reason="follow-up: the thread's knowledge bases, then " + own["reason"],
                        shares=shares)
    return KbChoice(kbs=before, reason="follow-up: stays with the thread's knowledge bases",
                    shares=shares)


def kb_labels(options: list[KbOption], kbs: list[str]) -> dict[str, str]:
    """Clarify options naming KBs: each KB's description (short), else its name."""
    about = {o["name"]: o["about"] for o in options}
    out: dict[str, str] = {}
    for kb in kbs:
        text = about.get(kb, "")
        label = f"{kb}: {text}" if text else kb
        out[label[:70]] = kb
    return out
