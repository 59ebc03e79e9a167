"""What the LLM must reply for each step, and how a reply becomes the engine's output.

Replies are parsed leniently (code fences and prose around the object are tolerated) and
validated strictly: a reply that does not fit its step raises ``ReplyError`` or pydantic's
``ValidationError``, and the engine retries or falls back to the offline rule.
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal

import pydantic_core
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from agent.offline.generate import looks_like_instruction, render
from agent.state import (
    Bridge,
    ClarifyRequest,
    Draft,
    EvaluateInput,
    Evaluation,
    Facets,
    FilterSpec,
    Passage,
    Plan,
    RouteDecision,
    Sentence,
    SubQuestion,
    Understanding,
    Verdict,
)
from store.tokenize import cjk_ratio

MAX_SUB_QUESTIONS = 4
MAX_NEXT_QUERIES = 2
MAX_PASSAGE_CHARS = 1200
MAX_PROMPT_CHARS = 12000  # about 3,000-4,000 tokens of passages per request
MAX_OPTIONS = 3
_FENCE = re.compile(r"^```(?:json)?\s*|(?<!\s)\s*+```$", re.I)  # spaces read once
# Reasoning models (Qwen3, DeepSeek-R1 served raw) think aloud before the JSON.
_THINK = re.compile(r"<think>.*?</think>", re.S)


class ReplyError(ValueError):
    """The model replied, but not with something this step can use."""


def parse_object(content: object) -> dict[str, Any]:
    """The JSON object in a reply's content (tolerating fences and surrounding prose)."""
    if not isinstance(content, str):
        raise ReplyError("reply content is not text")
    text = _FENCE.sub("", _THINK.sub("", content).strip())
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end <= start:
        raise ReplyError("no JSON object in reply")
    try:
        data = json.loads(text[start:end + 1])
    except json.JSONDecodeError as exc:
        raise ReplyError("malformed JSON in reply") from exc
    if not isinstance(data, dict):
        raise ReplyError("reply is not a JSON object")
    return data


class _Reply(BaseModel):
    model_config = ConfigDict(extra="ignore")


class UnderstandReply(_Reply):
    query: str = Field(min_length=1)
    is_followup: bool = False
    entities: list[str] = []
    expansions: list[str] = []
    time_range: str | None = None
    metrics: list[str] = []
    implicit_context: list[str] = []

    def to_state(self, base: Understanding) -> Understanding:
        """Overlay on the offline reading, which keeps the language (a property of the text)."""
        return Understanding(
            query=self.query.strip(), language=base["language"],
            is_followup=self.is_followup,
            # The offline terms stay when the model names none; expansions only add recall.
            entities=_clean(self.entities) or base["entities"],
            expansions=_clean([*self.expansions, *base["expansions"]]),
            time_range=self.time_range or base["time_range"],
            metrics=_clean(self.metrics), implicit_context=_clean(self.implicit_context))


class RouteReply(_Reply):
    route: Literal["direct_answer", "single_retrieval", "multi_retrieval", "clarify"]
    reason: str = ""
    clarify_question: str | None = None
    options: list[str] = []
    knowledge_bases: list[str] = []

    def to_state(self, facets: Facets, offline: RouteDecision) -> RouteDecision:
        """Rules first: the model cannot skip search for a knowledge question nor narrow a
        comparison or chained question to one search, nor clarify a question the rule finds
        specific; clarify options must exist in the KB.
        The KBs it names are checked against the conversation's by the route node."""
        decision = self._decision(facets, offline)
        if self.knowledge_bases:
            decision["kbs"] = _clean(self.knowledge_bases)
        return decision

    def _decision(self, facets: Facets, offline: RouteDecision) -> RouteDecision:
        if self.route == "direct_answer" and offline["route"] != "direct_answer":
            return RouteDecision(route=offline["route"], clarification=offline["clarification"],
                                 reason="model said direct_answer; a knowledge question searches")
        if self.route == "single_retrieval" and offline["route"] == "multi_retrieval":
            return offline
        if self.route != "clarify":
            return RouteDecision(route=self.route, reason=self.reason or "llm",
                                 clarification=None)
        if offline["route"] != "clarify":
            # Whether a question names a topic is the rule's to say (its words and the
            # KB's spread of them, agent.vague): the model may find a vague
            # question clear, never a specific one vague.
            return offline
        known = {*facets["titles"], *facets["doc_types"]}
        options = [o for o in _clean(self.options) if o in known][:MAX_OPTIONS]
        if not self.clarify_question or not self.clarify_question.strip():
            raise ReplyError("clarify without a question")
        if not options and offline["clarification"]:
            options = offline["clarification"]["options"]
        return RouteDecision(route="clarify", reason=self.reason or "llm",
                             clarification=ClarifyRequest(question=self.clarify_question.strip(),
                                                          options=options))


class _SubQ(_Reply):
    id: str = Field(min_length=1)
    query: str = Field(min_length=1)
    depends_on: list[str] = []
    doc_types: list[str] = []
    sources: list[str] = []


class PlanReply(_Reply):
    sub_questions: list[_SubQ] = Field(min_length=1, max_length=MAX_SUB_QUESTIONS)

    def to_state(self, facets: Facets) -> Plan:
        """Dependencies must point to earlier ids; filters keep only values in the KB."""
        seen: set[str] = set()
        out: list[SubQuestion] = []
        for sq in self.sub_questions:
            if sq.id in seen:
                raise ReplyError("duplicate sub-question id")
            if any(d not in seen for d in sq.depends_on):
                raise ReplyError("depends_on names an unknown or later sub-question")
            seen.add(sq.id)
            out.append(SubQuestion(
                id=sq.id, query=sq.query.strip(), depends_on=list(sq.depends_on),
                filters=FilterSpec(
                    doc_types=[d for d in sq.doc_types if d in facets["doc_types"]],
                    sources=[s for s in sq.sources if s in facets["sources"]])))
        return Plan(sub_questions=out)


class BridgeReply(_Reply):
    query: str = Field(min_length=1)
    bridge_entity: str | None = None

    def to_state(self) -> Bridge:
        return Bridge(query=self.query.strip(), bridge_entity=(self.bridge_entity or None))


class EvaluateVote(_Reply):
    sufficient: bool
    certain: bool = True  # a vote that says it is unsure gets the strict second vote
    missing: list[str] = []
    next_queries: list[str] = []
    reason: str = ""


class _Sentence(_Reply):
    text: str = Field(min_length=1)
    cites: list[int] = []

    def to_state(self, passages: int) -> Sentence:
        """The sentence without ``[n]`` marks; its citations must exist, and text obeying a
        document is rejected."""
        text = re.sub(r"(?<!\s)\s*+\[\d++\]", "", self.text).strip()
        if not self.cites or any(not 1 <= n <= passages for n in self.cites):
            raise ReplyError("sentence without a valid citation")
        if looks_like_instruction(text):
            raise ReplyError("sentence repeats an instruction from a document")
        return Sentence(text=text, cites=sorted(set(self.cites)))


def written_sentences(content: str, passages: int) -> list[Sentence]:
    """The answer sentences a generate reply being streamed has finished so far (the last
    one of a partial reply may still grow). Stops at the first that breaks the rules: the
    whole reply is validated again when it ends."""
    text = _THINK.sub("", content)
    start = text.find("{")
    if start < 0:
        return []
    try:
        data = pydantic_core.from_json(text[start:], allow_partial=True)
    except ValueError:
        return []
    if not isinstance(data, dict) or data.get("refused") is not False:
        return []
    raw = data.get("sentences")
    if not isinstance(raw, list):
        return []
    try:
        json.loads(text[start:text.rfind("}") + 1])
    except json.JSONDecodeError:
        raw = raw[:-1]  # still being written
    out: list[Sentence] = []
    for item in raw:
        try:
            out.append(_Sentence.model_validate(item).to_state(passages))
        except (ValidationError, ReplyError):
            break
    return out


class GenerateReply(_Reply):
    refused: bool
    sentences: list[_Sentence] = []

    def to_state(self, passages: list[Passage], language: str, refusal: Draft) -> Draft:
        """Every sentence cites passages that exist; text obeying a document is rejected."""
        if self.refused or not self.sentences:
            return refusal
        sentences = [s.to_state(len(passages)) for s in self.sentences]
        text = render(sentences, language)
        if not _in_language(text, language):
            raise ReplyError("answer not in the question's language")
        return Draft(sentences=sentences, refused=False, text=text)


class VerifyReply(_Reply):
    supported: bool
    unsupported: list[str] = []
    reason: str = ""

    def to_state(self, draft: Draft) -> Verdict:
        """Unsupported sentences are matched back to the draft's own sentence texts."""
        if self.supported:
            return Verdict(supported=True, unsupported=[], reason=self.reason or "llm judge")
        texts = [s["text"] for s in draft["sentences"]]
        flagged = [t for t in texts
                   if any(_same(t, u) for u in self.unsupported)]
        if not flagged:
            raise ReplyError("unsupported sentences do not match the draft")
        return Verdict(supported=False, unsupported=flagged, reason=self.reason or "llm judge")


def prompt_passages(passages: list[Passage], *, best_first: bool = False) -> list[dict[str, Any]]:
    """Passages as the model sees them, numbered as in the step's input, within
    ``MAX_PROMPT_CHARS``. ``best_first`` shows each search's top hits first (evaluate judges
    the whole pool, which can be far larger than what generate receives)."""
    numbered = list(enumerate(passages, start=1))
    if best_first:
        numbered.sort(key=lambda item: (item[1]["rank"], -item[1]["round"]))
    out: list[dict[str, Any]] = []
    used = 0
    for n, p in numbered:
        text = p["text"][:MAX_PASSAGE_CHARS]
        if out and used + len(text) > MAX_PROMPT_CHARS:
            break
        used += len(text)
        out.append({"n": n, "title": p["title"], "section": " > ".join(p["heading_path"]),
                    "text": text})
    return out


def merge_votes(votes: list[EvaluateVote], inp: EvaluateInput) -> Evaluation:
    """Sufficient only when every vote says so; the dissenters' gaps become next queries."""
    if all(v.sufficient for v in votes):
        return Evaluation(sufficient=True, missing=[], next_queries=[],
                          reason=f"{len(votes)} of {len(votes)} votes: sufficient")
    missing = list(dict.fromkeys(m.strip() for v in votes if not v.sufficient
                                 for m in v.missing if m.strip()))
    queries = list(dict.fromkeys(q.strip() for v in votes if not v.sufficient
                                 for q in v.next_queries if q.strip()))
    if not queries:  # a vote that names what is missing but no query: search for it
        base = inp["understanding"]["query"]
        queries = [f"{base} {m}" for m in missing]
    next_round = inp["round"] + 1
    next_queries = [SubQuestion(id=f"r{next_round}q{i}", query=q, depends_on=[],
                                filters=FilterSpec(doc_types=[], sources=[]))
                    for i, q in enumerate(queries[:MAX_NEXT_QUERIES], start=1)]
    reasons = "; ".join(v.reason for v in votes if not v.sufficient and v.reason)
    return Evaluation(sufficient=False, missing=missing, next_queries=next_queries,
                      reason=f"insufficient by {sum(not v.sufficient for v in votes)} of "
                             f"{len(votes)} votes" + (f": {reasons}" if reasons else ""))


def _in_language(text: str, language: str) -> bool:
    """Loose on purpose: Chinese answers quote English terms (Redis, maxmemory) and English
    answers quote Chinese titles."""
    ratio = cjk_ratio(text)
    return ratio >= 0.1 if language == "zh" else ratio < 0.5


def _clean(values: list[str]) -> list[str]:
    out: list[str] = []
    for raw in values:
        v = raw.strip()
        if v and v not in out:
            out.append(v)
    return out


def _same(sentence: str, quoted: str) -> bool:
    a = re.sub(r"\s+|\[\d+\]", "", sentence)
    b = re.sub(r"\s+|\[\d+\]", "", quoted)
    return bool(b) and (a == b or b in a or (len(a) > 0 and a in b))
