"""Offline ``route``: rules. Knowledge questions always search."""

from __future__ import annotations

import re

from agent import messages
from agent.offline.versus import compared_names
from agent.question_shape import has_relative_clause, is_chitchat, is_comparison, is_composed
from agent.state import ClarifyRequest, Facets, Language, RouteDecision, RouteInput
from agent.text import content_terms, term_set
from agent.vague import specificity

# The type a document gets when nothing names one: as an option it says nothing.
_UNCLASSIFIED = frozenset(["document", "text"])


def is_multi_question(question: str) -> bool:
    """Two questions in one message (a multi-hop chain like "哪个预案？预案里…？")."""
    marks = re.findall(r"[?？]", question.strip().rstrip("?？"))
    return len(marks) >= 1


def clarify_options(question: str, facets: Facets, limit: int = 3,
                    language: Language = "en") -> list[str]:
    """Up to ``limit`` choices from the KB: titles sharing a term, else doc types (in the
    asker's ``language``; not the unclassified "document"), else titles."""
    terms = set(content_terms(question)) | term_set(question)
    scored = []
    for title in facets["titles"]:
        overlap = len(terms & term_set(title))
        if overlap:
            scored.append((-overlap, title))
    options = [t for _, t in sorted(scored)][:limit]
    if len(options) < 2:
        kinds = [d for d in facets["doc_types"] if d not in _UNCLASSIFIED]
        if language == "zh":
            # The type stays in the label: a reply naming it filters the search by it.
            kinds = [f"{messages.DOC_TYPE_LABELS_ZH[d]}（{d}）"
                     if d in messages.DOC_TYPE_LABELS_ZH else d for d in kinds]
        options = [d for d in kinds if d not in options][:limit] or options
    if len(options) < 2:
        options = facets["titles"][:limit]
    return options[:limit]


def is_underspecified(inp: RouteInput) -> bool:
    """The question names no topic of its own (``agent.vague``), and no earlier
    turn of its thread has one: in a thread with a topic, a question without its own leans
    on the thread's, even where the understand step found its words enough to search by."""
    if inp["understanding"]["is_followup"] or inp.get("thread_topic"):
        return False
    return specificity(inp["question"], inp.get("spread")) != "names_topic"


def route(inp: RouteInput) -> RouteDecision:
    question = inp["question"]
    u = inp["understanding"]
    if is_chitchat(question):
        return RouteDecision(route="direct_answer", reason="greeting or chit-chat",
                             clarification=None)
    if is_underspecified(inp):
        lang = u["language"]
        options = clarify_options(" ".join([question, *u["expansions"]]), inp["facets"],
                                  language=lang)
        text = messages.CLARIFY[lang] if options else messages.CLARIFY_NO_OPTIONS[lang]
        return RouteDecision(route="clarify", reason="under-specified question",
                             clarification=ClarifyRequest(question=text, options=options))
    if is_comparison(question) or compared_names(question) is not None:
        return RouteDecision(route="multi_retrieval", reason="comparison", clarification=None)
    if is_multi_question(question):
        return RouteDecision(route="multi_retrieval", reason="several questions in one",
                             clarification=None)
    return RouteDecision(route="single_retrieval", reason="knowledge question",
                         clarification=None)


__all__ = ["clarify_options", "has_relative_clause", "is_chitchat", "is_comparison",
           "is_composed", "route"]
