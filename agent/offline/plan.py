"""Offline ``plan`` and ``bridge``: split comparisons and chained questions; find bridges."""

from __future__ import annotations

import re

from agent.offline.pairs import comparison_parts
from agent.offline.versus import searches
from agent.question_shape import is_comparison
from agent.state import (
    Bridge,
    BridgeInput,
    Facets,
    FilterSpec,
    Passage,
    Plan,
    PlanInput,
    SubQuestion,
)
from agent.text import content_terms, norm, split_sentences, term_set

# Words in a later question that point at what an earlier one found.
_DEPENDS = re.compile(r"(预案里|预案中|文档里|文档中|其中|里面|它|其|该|上述|这个|那个|这|那|"
                      r"\bit\b|\bits\b|\bthat\b|\bthis\b|\bthose\b|\bthe above\b)", re.I)
_QUOTED = re.compile(r"《([^》]{2,40})》|“([^”]{2,40})”|\"([^\"]{2,60})\"|「([^」]{2,40})」")
# Possessive runs: a word never gives back letters and a gap never splits its spaces, so a
# long run of spaces or capitals is read once (the plain form retried every split of a gap).
_CAPS = re.compile(r"\b([A-Z][\w'&.-]*+(?:\s++(?:(?:of|the|and|de|for|in|on|&)\s*+)?"
                   r"[A-Z][\w'&.-]*+)*)")


def filters_for(question: str, facets: Facets) -> FilterSpec:
    """Doc-type filters the question names explicitly and that exist in the KB."""
    q = norm(question)
    doc_types = [d for d in facets["doc_types"]
                 if len(norm(d)) >= 3 and norm(d) in q and d not in ("document", "text")]
    return FilterSpec(doc_types=doc_types, sources=[])


def _sub(i: int, query: str, depends_on: list[str], filters: FilterSpec) -> SubQuestion:
    return SubQuestion(id=f"q{i}", query=query.strip(), depends_on=depends_on, filters=filters)


def plan(inp: PlanInput) -> Plan:
    u = inp["understanding"]
    query = u["query"]
    if u["expansions"]:
        query = query + " " + " ".join(u["expansions"])
    filters = filters_for(inp["question"], inp["facets"])
    subs = [_sub(1, query, [], filters)]
    if inp["route"] != "multi_retrieval":
        return Plan(sub_questions=subs)
    named = searches(inp["question"])
    if named:
        # Two names compared for one value each: each name searched with the asked thing.
        subs.extend(_sub(i, q, [], filters) for i, q in enumerate(named, start=2))
        return Plan(sub_questions=subs)
    if is_comparison(inp["question"]):
        parts = comparison_parts(u["query"])
        aspect = [t for t in content_terms(u["query"])
                  if not any(t in term_set(p) for p in parts)]
        for i, part in enumerate(parts, start=2):
            subs.append(_sub(i, part + " " + " ".join(aspect), [], filters))
        return Plan(sub_questions=subs)
    pieces = [p for p in re.split(r"(?<=[?？])", u["query"]) if content_terms(p)]
    if len(pieces) < 2:
        return Plan(sub_questions=subs)
    subs = [_sub(1, pieces[0], [], filters)]
    for i, piece in enumerate(pieces[1:], start=2):
        deps = [subs[0]["id"]] if _DEPENDS.search(piece) else []
        subs.append(_sub(i, piece, deps, filters))
    return Plan(sub_questions=subs)


# Capitalised words that are rarely the thing a question hops to.
_NOT_ENTITIES = frozenset([
    "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december", "monday", "tuesday", "wednesday", "thursday", "friday",
    "saturday", "sunday", "the", "a", "an", "in", "on", "at", "by", "of", "for", "to", "from",
    "with", "unlike", "during", "after", "before", "since", "although", "however", "while",
    "when", "where", "it", "he", "she", "they", "this", "that", "these", "those", "his", "her",
    "their", "its", "there", "here", "as", "also", "both", "many", "some", "most",
])


_LEADING_WORDS = _NOT_ENTITIES - {"the"}


def _clean_name(name: str) -> str:
    """Drop leading function words and dates: "In June" -> "", "The West Branch" kept."""
    words = name.split()
    lead = next((i for i, w in enumerate(words) if w.lower() not in _LEADING_WORDS), len(words))
    words = words[lead:]  # one pass: dropping words one slice at a time was quadratic
    if words and words[0].lower() == "the" and len(words) == 1:
        return ""
    if all(w.lower().strip(".,") in _NOT_ENTITIES or w.isdigit() for w in words):
        return ""
    return " ".join(words).rstrip(".,;:'\"-")


def candidate_entities(sentence: str, exclude: str, subject: str = "") -> list[str]:
    """Names in ``sentence`` not already in ``exclude`` nor naming ``subject`` (the passage's
    own title): quoted titles first, then capitalised phrases, longer ones first."""
    present = norm(exclude)
    subject_terms = term_set(subject)
    out: list[str] = []
    for m in _QUOTED.finditer(sentence):
        name = next(g for g in m.groups() if g)
        if norm(name) not in present and norm(name) != norm(subject):
            out.append(name)
    if out or re.search(r"[\u4e00-\u9fff]", sentence):
        return out  # Chinese text names documents in 《》; capitals there are acronyms
    caps: list[str] = []
    for m in _CAPS.finditer(sentence):
        name = _clean_name(m.group(1).strip())
        terms = term_set(name)
        if len(name) <= 2 or norm(name) in present or name in caps or not terms:
            continue
        if subject_terms and len(terms & subject_terms) * 2 >= len(terms):
            continue  # the passage's own subject, not where it leads
        caps.append(name)
    # The bridge usually follows the question's own words ("produced by Trent Reznor"):
    # rank names by how closely a question term precedes them; longer names break ties.
    q_terms = [t for t in content_terms(exclude) if len(t) > 2]
    low = sentence.lower()

    def gap(name: str) -> int:
        at = low.find(name.lower())
        ends = [low.rfind(t, 0, at) + len(t) for t in q_terms if low.rfind(t, 0, at) >= 0]
        return at - max(ends) if ends and at >= 0 else 10_000

    return out + sorted(caps, key=lambda n: (gap(n), -min(len(n.split()), 3)))


def best_sentence(passages: list[Passage], query: str) -> tuple[str, Passage] | None:
    """The sentence sharing most topic terms with ``query`` (ties: better-ranked passage)."""
    terms = content_terms(query)
    best: tuple[float, str, Passage] | None = None
    for p in passages:
        for s in split_sentences(p["text"]):
            score = len(set(terms) & term_set(s)) - 0.01 * p["rank"]
            if best is None or score > best[0]:
                best = (score, s, p)
    return (best[1], best[2]) if best else None


def bridge(inp: BridgeInput) -> Bridge:
    sub = inp["sub_question"]
    found = inp["found"][:3]
    query = _DEPENDS.sub(" ", sub["query"]).strip()
    picked = best_sentence(found, sub["query"])
    entity: str | None = None
    if picked is not None:
        names = candidate_entities(picked[0], sub["query"], picked[1]["title"])
        entity = names[0] if names else None
    if entity is None and found:
        title = found[0]["title"]
        entity = title if norm(title) not in norm(sub["query"]) else None
    if entity:
        query = f"{entity} {query}"
    return Bridge(query=query, bridge_entity=entity)
