"""Offline ``generate``: an extractive answer from the best supporting sentences.

Sentences are scored by the question's topic terms they contain, weighted by how rare each
term is in the pool. Document text is data: sentences that read like instructions to an
assistant are never quoted, so a document cannot make the bot say what it dictates.
"""

from __future__ import annotations

import math
import re

from agent import messages
from agent.offline.route import is_chitchat
from agent.offline.text import content_terms, coverage, norm, split_sentences, term_set
from agent.state import Draft, GenerateInput, Passage, Sentence

MAX_SENTENCES = 3
MAX_CHARS = 450
# Below this share of the question's terms in the best passage, the pool is off-topic.
REFUSE_BELOW = 0.5

_INJECTION = re.compile(
    r"(ignore (all |any )?(the )?(previous|prior|above|earlier)|disregard (all |the )?"
    r"(previous|prior|above)|system prompt|you are now|act as|new instructions|"
    r"respond (only )?with|reply (only )?with|忽略(之前|以上|上面|前面|所有)|无视(之前|以上|所有)|"
    r"系统提示|你现在是|扮演|新的指令|只回答|请回复|必须回答)", re.I)
_THANKS = re.compile(r"(thank|thx|cheers|谢|感谢)", re.I)


def looks_like_instruction(sentence: str) -> bool:
    return bool(_INJECTION.search(sentence))


def _idf(terms: list[str], passages: list[Passage]) -> dict[str, float]:
    sets = [term_set(p["title"] + " " + p["text"]) for p in passages]
    n = len(sets) or 1
    return {t: math.log(1 + n / (1 + sum(1 for s in sets if t in s))) + 0.1 for t in terms}


def _score(terms: list[str], idf: dict[str, float], sentence_terms: set[str]) -> float:
    total = sum(idf[t] for t in terms) or 1.0
    return sum(idf[t] for t in terms if t in sentence_terms) / total


def refusal(language: str) -> Draft:
    text = messages.REFUSAL["zh" if language == "zh" else "en"]
    return Draft(sentences=[], refused=True, text=text)


def generate(inp: GenerateInput) -> Draft:
    u = inp["understanding"]
    lang = u["language"]
    if inp["route"] == "direct_answer":
        table = messages.THANKS if _THANKS.search(inp["question"]) else messages.GREETING
        text = table[lang] if is_chitchat(inp["question"]) else messages.GREETING[lang]
        return Draft(sentences=[Sentence(text=text, cites=[])], refused=False, text=text)
    passages = inp["passages"]
    terms = content_terms(u["query"])
    if not passages or not terms:
        return refusal(lang)
    passage_cov = [coverage(terms, term_set(p["title"] + " " + p["text"])) for p in passages]
    if max(passage_cov) < REFUSE_BELOW:
        return refusal(lang)
    rejected = {norm(s) for s in inp["rejected"]}
    idf = _idf(terms, passages)
    candidates: list[tuple[float, int, str, set[str]]] = []
    for n, p in enumerate(passages, start=1):
        title_terms = term_set(p["title"])
        for s in split_sentences(p["text"]):
            if looks_like_instruction(s) or norm(s) in rejected:
                continue
            st = term_set(s)
            # The title counts a little: a sentence about "it" in the right document.
            score = (_score(terms, idf, st) + 0.25 * _score(terms, idf, st | title_terms)
                     + 0.15 * passage_cov[n - 1] - 0.01 * p["rank"])
            candidates.append((score, n, s, st))
    if not candidates:
        return refusal(lang)
    candidates.sort(key=lambda c: (-c[0], c[1]))
    chosen = [candidates[0]]
    # The best sentence for each extra query (a bridge hop, a compared item).
    for q in inp["queries"][1:]:
        q_terms = content_terms(q)
        if not q_terms:
            continue
        q_idf = _idf(q_terms, passages)
        best = max(candidates, key=lambda c: (_score(q_terms, q_idf, c[3]), -c[1]))
        if _score(q_terms, q_idf, best[3]) >= 0.5 and best not in chosen:
            chosen.append(best)
    # Then sentences that add terms the chosen ones lack.
    covered = set().union(*(c[3] for c in chosen))
    for c in candidates[1:]:
        if len(chosen) >= MAX_SENTENCES:
            break
        gain = [t for t in terms if t in c[3] and t not in covered]
        if gain and c not in chosen and c[0] >= 0.3:
            chosen.append(c)
            covered |= c[3]
    sentences: list[Sentence] = []
    length = 0
    for _, n, s, _ in chosen[:MAX_SENTENCES + 1]:
        if sentences and length + len(s) > MAX_CHARS:
            break
        sentences.append(Sentence(text=s, cites=[n]))
        length += len(s)
    return Draft(sentences=sentences, refused=False, text=render(sentences, lang))


def render(sentences: list[Sentence], language: str) -> str:
    """Sentences with their ``[n]`` markers (passage numbers)."""
    sep = "" if language == "zh" else " "
    parts = []
    for s in sentences:
        marks = "".join(f"[{n}]" for n in s["cites"])
        parts.append(f"{s['text']}{marks}")
    return sep.join(parts)
