"""Offline ``generate``: an extractive answer from the best supporting sentences.

Sentences are scored by the question's topic terms they contain, weighted by how rare each
term is in the pool. Document text is data: sentences that read like instructions to an
assistant are never quoted, so a document cannot make the bot say what it dictates.
"""

from __future__ import annotations

import re

from agent import messages
from agent.offline.answerable import Carried, answerable, missing_constraint
from agent.offline.asked import value_pattern
from agent.offline.chain import chain_lead, is_relation
from agent.offline.compare import comparison_lead
from agent.offline.digest import subject_terms, summarised
from agent.offline.disagree import disagreement
from agent.offline.layout import rendered_rows
from agent.offline.lists import complete_lists, with_antecedents
from agent.offline.parts import (
    asks_which_document,
    member_parts,
    question_parts,
    title_answer,
)
from agent.offline.ranking import (
    Candidate,
    flagged_outranks,
    focus_terms,
    frame,
    looks_like_instruction,
    pool_idf,
    rank_sentences,
    senses,
    set_aside,
    translated,
)
from agent.offline.roles import asked_organisation, role_first
from agent.offline.route import is_chitchat, is_comparison
from agent.offline.steps import (
    HEADING_SHARE,
    announced,
    announces_sections,
    in_section,
    outline,
    procedure,
    summary,
)
from agent.offline.versions import superseded
from agent.offline.versus import compare, signed_date
from agent.question_shape import asks_how, asks_things, is_procedural
from agent.state import Draft, GenerateInput, Passage, Sentence
from agent.text import content_terms, join_sentences, norm, terms_of, weighted_share
from agent.wording import standard_chinese
from store.suspicious import is_suspicious

__all__ = ["focus_terms", "generate", "looks_like_instruction", "refusal", "render"]

_THANKS = re.compile(r"(thank|thx|cheers|谢|感谢)", re.I)

MAX_SENTENCES = 3
# How far down a part's ranking a sentence holding the asked value is preferred.
PART_VALUE_WITHIN = 5
# How far down a member part's ranking a sentence from a document not yet quoted is taken.
MEMBER_WITHIN = 10
MAX_CHARS = 500


def refusal(language: str, missing: str | None = None) -> Draft:
    """A refusal in the asker's language; naming ``missing``, the word the documents never
    mention, when that is why."""
    lang = "zh" if language == "zh" else "en"
    text = (messages.REFUSAL[lang] if missing is None
            else messages.REFUSAL_MISSING[lang].format(term=missing))
    return Draft(sentences=[], refused=True, text=text)


def generate(inp: GenerateInput) -> Draft:  # noqa: PLR0911 - each early return is one kind of answer
    # How the question asks is read in written Chinese: "写不进去了咋办" asks 怎么办.
    inp = GenerateInput(**{**inp, "question": standard_chinese(inp["question"])})
    u = inp["understanding"]
    lang = u["language"]
    if inp["route"] == "direct_answer":
        table = messages.THANKS if _THANKS.search(inp["question"]) else messages.GREETING
        text = table[lang] if is_chitchat(inp["question"]) else messages.GREETING[lang]
        return Draft(sentences=[Sentence(text=text, cites=[])], refused=False, text=text)
    passages = inp["passages"]
    # "概括一下…的重大事项": 概括 and 重大事项 ask for the summary; the rest names its subject.
    terms = subject_terms(inp["question"], content_terms(u["query"]))
    # A question that tells the bot what to do ("ignore previous instructions…") is not
    # one the documents answer; obeying it is what an injection wants.
    if (not passages or not terms or is_suspicious(inp["question"])
            or not _supported(inp, terms)):
        return refusal(lang)
    all_terms = list(dict.fromkeys(t for q in [u["query"], *inp["queries"]]
                                   for t in content_terms(q)))
    candidates, fit = rank_sentences(inp, terms, all_terms)
    absent = missing_constraint(inp["question"], passages, senses(inp))
    if absent is not None:
        # Say what is missing rather than answer about something else.
        return found_instead(absent, candidates, lang)
    if not candidates:
        return refusal(lang)
    if flagged_outranks(inp, terms, candidates):
        text = messages.REFUSAL_INJECTED["zh" if lang == "zh" else "en"]
        return Draft(sentences=[], refused=True, text=text)
    dated = _compared_or_dated(inp, candidates)
    if dated is not None:
        return Draft(sentences=dated, refused=False, text=render(dated, lang))
    # "概括一下…的判决内容": the best document's holdings or events, not its opening.
    digest = summarised(inp["question"], passages, candidates[0][1] - 1, MAX_CHARS)
    if digest is not None:
        return Draft(sentences=digest, refused=False, text=render(digest, lang))
    # "Who is the chief executive of the company that …": the role's sentence answers.
    candidates = role_first(inp["question"], candidates)
    parts = _answer_parts(inp, all_terms)
    procedural = not parts and is_procedural(inp["question"])
    # "访客预约怎么操作？": a how-question whose words name a section with a list asks for
    # that list, though "怎么 + verb" alone may ask for the one fix that fits a case; so
    # does one asking what to provide or bring ("What must a new supplier provide?").
    steps = (_procedure(inp, terms) if procedural
             else _procedure(inp, terms, named_by_heading=True)
             if not parts and (asks_how(inp["question"]) or asks_things(inp["question"]))
             else None)
    if not parts and asks_how(inp["question"]) and not _announced(inp, steps, procedural):
        # "MySQL 慢查询怎么排查": a runbook in numbered sections is the procedure as a whole.
        whole = _outline(inp, terms, candidates)
        steps, procedural = (whole, True) if whole is not None else (steps, procedural)
    row = _case_row(inp, terms, candidates, steps) if steps else None
    if row is not None:
        # The case's own row answers, not a list about other cases.
        steps, procedural = None, False
        candidates = [row, *(c for c in candidates if c is not row)]
    if steps or procedural:
        # The direct answer first: long steps open with their leads on one line.
        brief = summary(steps, lang, inp["passages"]) if steps else None
        sentences = [*_leads(inp), *([brief] if brief else []), *steps] if steps else _quote(
            inp, _steps(candidates, fit))
    else:
        frames = {n: terms_of(frame(p), all_terms, translated(inp))
                  for n, p in enumerate(passages, start=1)}
        held = {n: frames[n] | terms_of(p["text"], all_terms, translated(inp))
                for n, p in enumerate(passages, start=1)}
        conflict = None if parts or _leads(inp) else disagreement(
            inp["question"], terms, candidates, passages, old=superseded(passages), language=lang)
        # A question in parts: its parts' answers first, then the support (a bridge hop).
        # Two documents that disagree: both, and nothing that would pick a side.
        sentences = conflict or with_antecedents(complete_lists(_quote(
            inp, _facts(candidates, terms, inp["queries"], passages, frames, held=held),
            first=parts),
            passages, inp["question"]), passages)
        # "哪家公司…": the organisation's name first, when the sentences only say "公司".
        cited = next((x["cites"][0] for x in sentences if x["cites"]), None)
        owner = (asked_organisation(inp["question"], passages, cited)
                 if cited is not None and not conflict else None)
        if owner is not None and not any(norm(owner["text"]) in norm(x["text"])
                                         for x in sentences):
            sentences = [owner, *sentences]
    return Draft(sentences=sentences, refused=False, text=render(sentences, lang))


def _compared_or_dated(inp: GenerateInput, candidates: list[Candidate]) -> list[Sentence] | None:
    """Two named things compared ("A和B哪家营收更高"): the verdict and each one's value from
    its own document; or a judgment's date, the one it is signed with (its facts carry other
    dates); None for other questions."""
    lang = inp["understanding"]["language"]
    versus = compare(inp["question"], inp["passages"], lang)
    if versus is not None:
        return versus
    signed = signed_date(inp["question"], inp["passages"], candidates[0][1])
    return None if signed is None else _quote(inp, candidates[:1], first=[signed])


def _quote(inp: GenerateInput, chosen: list[Candidate],
           first: list[Sentence] | None = None) -> list[Sentence]:
    """``first`` (else the leads), then the ``chosen`` sentences while they fit in
    ``MAX_CHARS``."""
    sentences = list(first) if first else _leads(inp)
    length = sum(len(x["text"]) for x in sentences) if first else 0
    for _, n, s, _ in chosen:
        # A sentence already quoted inside a longer unit (an FAQ answer) adds nothing.
        if any(norm(s) in norm(x["text"]) or norm(x["text"]) in norm(s) for x in sentences):
            continue
        if sentences and length + len(s) > MAX_CHARS:
            break
        sentences.append(Sentence(text=s, cites=[n]))
        length += len(s)
    return sentences


def _answer_parts(inp: GenerateInput, all_terms: list[str]) -> list[Sentence]:
    """A question in parts: each part's best sentence (or, for "which document", its title),
    in the order asked, then the chain's lead if any; ``[]`` for a question in one part."""
    parts = question_parts(inp["question"])
    # Two members of a series ("2025年和2026年") are reported by near-duplicate documents:
    # each member's answer comes from a document of its own, not the other's.
    apart = bool(parts) and parts == member_parts(inp["question"])
    lang = inp["understanding"]["language"]
    out: list[Sentence] = []
    quoted: list[Candidate] = []
    for part in parts:
        ranked, _ = rank_sentences(GenerateInput(**{**inp, "question": part}),
                                   content_terms(part), all_terms)
        said = {norm(c[2]) for c in quoted}
        fresh = [c for c in ranked if norm(c[2]) not in said]
        used = {c[1] for c in quoted}
        if apart and any(c[1] not in used for c in fresh[:MEMBER_WITHIN]):
            fresh = [c for c in fresh if c[1] not in used]
        if not fresh:
            continue
        # A part that asks for a value ("占多少") is answered by a near-top sentence that
        # holds one, not by one that only repeats its words.
        value = value_pattern(part)
        if value is None and apart and quoted:
            # Both members are asked the same thing, so their values share a unit: after
            # "12月单月交付1.15万辆" the other month's answer holds "…万辆" too.
            value = _same_unit(quoted[0][2], part)
        holding = [c for c in fresh[:PART_VALUE_WITHIN] if value and value.search(c[2])]
        best = holding[0] if holding else fresh[0]
        quoted.append(best)
        if asks_which_document(part):
            out.append(title_answer(inp["passages"][best[1] - 1], best[1], lang))
        else:
            out.append(Sentence(text=best[2], cites=[best[1]]))
    if len(out) < len(parts):
        return []  # a part without a sentence of its own: answer the question as a whole
    said = {norm(x["text"]) for x in out}
    return out + [x for x in _leads(inp) if norm(x["text"]) not in said]


_UNIT = re.compile(r"\d[\d.,]*\s*([万亿千百]?[\u4e00-\u9fff%％])")


def _same_unit(answer: str, part: str) -> re.Pattern[str] | None:
    """A pattern for a number in the units of the first member's ``answer`` that the ``part``
    itself does not use (its "2026年6月" names the member, not the value)."""
    units = set(_UNIT.findall(answer)) - set(_UNIT.findall(part))
    if not units:
        return None
    return re.compile(r"\d[\d.,]*\s*(?:" + "|".join(map(re.escape, sorted(units))) + ")")


def _supported(inp: GenerateInput, terms: list[str]) -> bool:
    """Whether the pool holds enough of the question's terms to answer from (see
    ``agent.offline.answerable``)."""
    passages, lang = inp["passages"], inp["understanding"]["language"]
    several = (inp["route"] == "multi_retrieval" or len(inp["queries"]) > 1
               or is_comparison(inp["question"]))
    # A multi-hop chain's documents hold the question between them (see agent.offline.chain).
    chain = set((inp.get("chain") or [])[:4])
    joined = [p for p in passages if p["doc_id"] in chain] if len(chain) > 1 else []
    topic = [t for t in terms if not is_relation(t)]
    u = inp["understanding"]
    carried = Carried(u["implicit_context"], frozenset(u.get("carried_from", [])), lang)
    return answerable(terms, passages, several=several, language=lang, joined=joined,
                      joined_terms=topic, alternatives=senses(inp), carried=carried)


# How well the closest sentence must fit the rest of the question to be shown beside a
# refusal: below it, what was found is about something else and only confuses.
FOUND_MIN_SCORE = 0.6


def found_instead(missing: str, candidates: list[Candidate], language: str) -> Draft:
    """A refusal that names the ``missing`` word and, when a sentence fits the rest of the
    question well, shows it as what the documents do say; it stays a refusal
    (``refused``) and cites only that sentence."""
    draft = refusal(language, missing=missing)
    best = next((c for c in candidates if missing.casefold() not in c[2].casefold()), None)
    if best is None or best[0] < FOUND_MIN_SCORE:
        return draft
    lang = "zh" if language == "zh" else "en"
    sentences = [Sentence(text=draft["text"], cites=[], note=True),
                 Sentence(text=messages.FOUND_INSTEAD[lang], cites=[], note=True),
                 Sentence(text=best[2], cites=[best[1]])]
    return Draft(sentences=sentences, refused=True, text=render(sentences, language))


def _announced(inp: GenerateInput, steps: list[Sentence] | None, procedural: bool) -> bool:
    """Whether ``steps`` are a list the question names by its heading (``procedural`` false)
    or one whose heading announces the steps ("立即止损"): those answer, not an outline."""
    if not steps:
        return False
    return not procedural or announced(inp["passages"][steps[0]["cites"][0] - 1])


def _outline(inp: GenerateInput, terms: list[str], candidates: list[Candidate]
             ) -> list[Sentence] | None:
    """The numbered sections of the best sentence's document as steps (``steps.outline``),
    when that sentence is the document's opening (the question asks its subject as a whole,
    not a case one section or row names: "深分页很慢怎么优化") and the title holds at least
    half of the question's weight or the opening says the sections are the steps
    ("按以下步骤处理"); else ``None``."""
    if not candidates:
        return None
    passages = inp["passages"]
    best = passages[candidates[0][1] - 1]
    if in_section(best):
        return None
    alternatives = translated(inp)
    idf = pool_idf(terms, passages, alternatives)
    if (weighted_share(terms, idf, terms_of(best["title"], terms, alternatives)) < HEADING_SHARE
            and not announces_sections(passages, best["doc_id"])):
        return None
    return outline(passages, best["doc_id"])


def _procedure(inp: GenerateInput, terms: list[str], *,
               named_by_heading: bool = False) -> list[Sentence] | None:
    """The listed steps for a "how do I…" question (see ``agent.offline.steps``), minus any
    the verifier rejected or the asker says they already did; ``None`` when fewer than two
    remain."""
    aside = set_aside(inp)
    steps = procedure(terms, inp["passages"], translated(inp),
                      named_by_heading=named_by_heading) or []
    kept = [s for s in steps if not aside(s["text"]) and not looks_like_instruction(s["text"])]
    return kept if len(kept) >= 2 else None


# How far down the ranking a table row may stand to answer a how-question for its case.
ROW_WITHIN = 3


def _case_row(inp: GenerateInput, terms: list[str], candidates: list[Candidate],
              steps: list[Sentence]) -> Candidate | None:
    """A how-question about one case that a table names with its fix ("退出码 137 怎么处理"
    and a row "OOMKilled（退出码 137）：含义 …；处理 …"): a row among the best sentences
    that holds more of the question's words than the whole list of steps; ``None`` when
    the steps are about the case as much (a list is the answer to "how do I …" in
    general, a row to "what do I do when …" for the case it names)."""
    passages = inp["passages"]
    alternatives = translated(inp)
    idf = pool_idf(terms, passages, alternatives)
    listed = set().union(*(terms_of(s["text"], terms, alternatives) for s in steps))
    # The row is the steps' own document's: a table elsewhere is about something else.
    document = {passages[n - 1]["doc_id"] for s in steps for n in s["cites"]}
    rows = {(n, row) for n, p in enumerate(passages, start=1) if p["doc_id"] in document
            for row, _ in rendered_rows(p["text"])}
    for c in candidates[:ROW_WITHIN]:
        held = c[3] & set(terms)
        # Two of the question's words at least name a case; one is only the topic.
        if ((c[1], c[2]) in rows and len(held) >= 2
                and weighted_share(terms, idf, held) > weighted_share(terms, idf, listed)):
            return c
    return None


def _leads(inp: GenerateInput) -> list[Sentence]:
    """What opens the answer before the best sentences: a comparison's verdict, or for a
    multi-hop chain the hop document's answer (the bridge facts follow)."""
    question, passages = inp["question"], inp["passages"]
    lead = comparison_lead(question, passages) if is_comparison(question) else None
    if lead is not None:
        return [lead]
    hop = chain_lead(question, inp.get("chain") or [], passages)
    return [Sentence(text=hop[1], cites=[hop[0]])] if hop is not None else []


def _steps(candidates: list[Candidate], fit: list[float]) -> list[Candidate]:
    """For "how do I…": the best passage's sentences in document order (its steps)."""
    best_n = candidates[0][1]
    if max(fit) - fit[best_n - 1] > 0.2:
        best_n = fit.index(max(fit)) + 1
    own = [c for c in candidates if c[1] == best_n]
    order = {id(c): i for i, c in enumerate(sorted(own, key=lambda c: -c[0]))}
    top = sorted(own, key=lambda c: order[id(c)])[:MAX_SENTENCES + 1]
    # Back into reading order: steps make sense in sequence.
    position = {c[2]: i for i, c in enumerate(own)}
    return sorted(top, key=lambda c: position[c[2]]) or candidates[:1]


def _facts(candidates: list[Candidate], terms: list[str], queries: list[str],
           passages: list[Passage], frames: dict[int, set[str]],
           *, held: dict[int, set[str]]) -> list[Candidate]:
    chosen = [candidates[0]]
    # The best sentence for each extra query (a bridge hop, a compared item); the title
    # counts, since a hop query starts with the name the document is about.
    for q in queries[1:]:
        q_terms = content_terms(q)
        if not q_terms:
            continue
        q_idf = pool_idf(q_terms, passages)

        def q_score(c: Candidate, q_terms: list[str] = q_terms,
                    q_idf: dict[str, float] = q_idf) -> float:
            return (weighted_share(q_terms, q_idf, c[3])
                    + 0.5 * weighted_share(q_terms, q_idf, c[3] | frames[c[1]]))

        rest = [c for c in candidates if c not in chosen]
        if not rest:
            break
        best = max(rest, key=lambda c: (q_score(c), -c[1]))
        if q_score(best) >= 0.75:
            chosen.append(best)
    # Then the best other sentences of the passages already quoted: the answer to a
    # lookup usually sits next to the sentence that names its subject.
    quoted = {c[1] for c in chosen}
    for c in candidates[1:]:
        if len(chosen) >= MAX_SENTENCES:
            break
        if c[1] in quoted and c not in chosen and c[0] >= 0.2:
            chosen.append(c)
    # Finally sentences elsewhere that add terms the quoted passages lack: a term the quoted
    # passage holds in another sentence, its title or its headings is not missing from it
    # ("cost" beside a runbook's "## Cost"), and another document's sentence holding it
    # answers something else.
    covered = set().union(*(c[3] for c in chosen), *(held[n] for n in quoted))
    for c in candidates[1:]:
        if len(chosen) >= MAX_SENTENCES:
            break
        gain = [t for t in terms if t in c[3] and t not in covered]
        if gain and c not in chosen and c[0] >= 0.4:
            chosen.append(c)
            covered |= c[3]
    return chosen[:MAX_SENTENCES + 1]


def render(sentences: list[Sentence], language: str) -> str:
    """Sentences with their ``[n]`` markers (passage numbers)."""
    return join_sentences([s["text"] + "".join(f"[{n}]" for n in s["cites"])
                           for s in sentences], language)
