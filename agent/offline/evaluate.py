"""Offline ``evaluate``: term coverage of the pool; bridge entities become the next queries."""

from __future__ import annotations

from agent.offline import chain as chains
from agent.offline.plan import best_sentence, candidate_entities
from agent.offline.route import has_relative_clause
from agent.state import EvaluateInput, Evaluation, FilterSpec, Passage, SubQuestion
from agent.text import Alternatives, content_terms, coverage, norm, terms_of

# A passage answering the question usually holds nearly all of its topic terms.
SUFFICIENT_COVERAGE = 0.75
MAX_NEXT_QUERIES = 2


def passage_terms(p: Passage, terms: list[str], alternatives: Alternatives | None = None
                  ) -> set[str]:
    return terms_of(p["title"] + " " + p["text"], terms, alternatives)


def best_coverage(terms: list[str], passages: list[Passage], *, pairs: bool = False,
                  alternatives: Alternatives | None = None) -> float:
    """Share of ``terms`` in the best passage, or in the best two together (``pairs``: a
    bridge question's answer spans the passage naming the bridge and the one about it)."""
    sets = [passage_terms(p, terms, alternatives) for p in passages]
    best = max((coverage(terms, s) for s in sets), default=0.0)
    if pairs:
        ranked = sorted(passages, key=lambda p: p["rank"])[:8]
        top = [passage_terms(p, terms, alternatives) for p in ranked]
        for i, a in enumerate(top):
            for b in top[i + 1:]:
                best = max(best, coverage(terms, a | b))
    return best


def missing_terms(terms: list[str], passages: list[Passage],
                  alternatives: Alternatives | None = None) -> list[str]:
    seen: set[str] = set()
    for p in passages:
        seen |= passage_terms(p, terms, alternatives)
    return [t for t in terms if t not in seen]


def evaluate(inp: EvaluateInput) -> Evaluation:
    u = inp["understanding"]
    terms = content_terms(u["query"])
    pool = inp["passages"]
    if not pool:
        return Evaluation(sufficient=False, missing=terms, next_queries=[],
                          reason="nothing retrieved")
    alternatives = u.get("translated_terms") or {}
    missing = missing_terms(terms, pool, alternatives)
    if u["language"] == "en" and not u["is_followup"] and len(inp["plan"]["sub_questions"]) == 1:
        chained = _follow_chain(inp, missing)
        if chained is not None:
            return chained
    # Several sub-questions (or a hop already taken): the answer may span two passages.
    spans = len(inp["plan"]["sub_questions"]) > 1 or inp["round"] > 1
    cov = best_coverage(terms, pool, pairs=spans, alternatives=alternatives)
    # "…produced by a man born in what year?": a relative clause names something only
    # another document describes, so one passage covering the words is not yet enough.
    bridge_first = (inp["round"] == 1 and not spans and u["language"] == "en"
                    and not u["is_followup"] and has_relative_clause(inp["question"]))
    if cov >= SUFFICIENT_COVERAGE and not bridge_first:
        return Evaluation(sufficient=True, missing=missing, next_queries=[],
                          reason=f"{'two passages cover' if spans else 'one passage covers'} "
                                 f"{cov:.0%} of the question's terms")
    if inp["round"] >= inp["max_rounds"]:
        return Evaluation(sufficient=False, missing=missing, next_queries=[],
                          reason="round cap reached")
    next_queries = _next_queries(inp, terms, missing)
    if not next_queries:
        return Evaluation(sufficient=False, missing=missing, next_queries=[],
                          reason="no new lead to search for")
    return Evaluation(sufficient=False, missing=missing, next_queries=next_queries,
                      reason=f"best evidence covers {cov:.0%}; following bridge entities")


def _next_queries(inp: EvaluateInput, terms: list[str], missing: list[str]) -> list[SubQuestion]:
    """Bridge hops: names found next to the question's terms, plus what is still missing."""
    query = inp["understanding"]["query"]
    # Only this round's finds lead further; earlier rounds were already followed.
    latest = [p for p in inp["passages"] if p["round"] == inp["round"]] or inp["passages"]
    asked = {norm(s["query"]) for s in inp["plan"]["sub_questions"]}
    out: list[SubQuestion] = []
    seen_entities: set[str] = set()
    for p in sorted(latest, key=lambda x: x["rank"])[:3]:
        picked = best_sentence([p], query)
        if picked is None:
            continue
        sentence = picked[0]
        covered = passage_terms(p, terms)
        # A hop asks about the new name plus what is still unanswered, briefly: a long tail
        # of the question's terms would pull back the passages already found.
        rest = sorted((t for t in terms if t not in covered), key=len, reverse=True)[:2]
        for entity in candidate_entities(sentence, query, p["title"])[:1]:
            if norm(entity) in seen_entities:
                continue
            seen_entities.add(norm(entity))
            text = " ".join([entity, *rest])
            if norm(text) in asked:
                continue
            out.append(SubQuestion(id=f"r{inp['round'] + 1}.{len(out) + 1}", query=text,
                                   depends_on=[], filters=FilterSpec(doc_types=[], sources=[])))
            if len(out) >= MAX_NEXT_QUERIES:
                return out
    if missing and not out:
        text = " ".join(missing)
        if norm(text) not in asked:
            out.append(SubQuestion(id=f"r{inp['round'] + 1}.m", query=text, depends_on=[],
                                   filters=FilterSpec(doc_types=[], sources=[])))
    return out


def _follow_chain(inp: EvaluateInput, missing: list[str]) -> Evaluation | None:
    """A question naming a document: hop from it along the relation words (``chain``).

    None when no retrieved document is about something the question names, or the question
    asks nothing of it through a relation word; the coverage rules decide then."""
    chain = chains.build_chain(inp["question"], inp["passages"], inp.get("searches", []))
    # Only a composed question hops: a relation word stands next to the name it asks about
    # ("Izgoy's performer"); "where does it snow most in North Carolina" just names a topic.
    if not chain.docs or not chains.relation_terms(inp["question"], chain.entities[0]):
        return None
    doc_ids = [d["doc_id"] for d in chain.docs]
    related = [d for d in chain.ranked_doc_ids() if d not in doc_ids]
    hops = chains.next_hops(inp["question"], chain)
    if not hops:
        return Evaluation(sufficient=True, missing=missing, next_queries=[], chain=doc_ids,
                          related=related,
                          reason=f"a chain of {len(doc_ids)} documents explains the question")
    if inp["round"] >= inp["max_rounds"]:
        return Evaluation(sufficient=False, missing=missing, next_queries=[], chain=doc_ids,
                          related=related, reason="round cap reached")
    asked = {norm(s["query"]) for s in inp.get("searches", [])}
    queries = [SubQuestion(id=f"r{inp['round'] + 1}.{i}", query=query, depends_on=[],
                           filters=FilterSpec(doc_types=[], sources=[]), entity=entity)
               for i, (entity, query) in enumerate(hops, start=1) if norm(query) not in asked]
    return Evaluation(sufficient=False, missing=missing, next_queries=queries, chain=doc_ids,
                      related=related,
                      reason=f"following {', '.join(e for e, _ in hops)} from "
                             f"{chain.docs[-1]['title']}")
