"""Typed, JSON-able data exchanged between graph nodes and engines.

Everything here is a ``TypedDict`` (a plain ``dict`` at run time): the graph state is
checkpointed with ``LANGGRAPH_STRICT_MSGPACK=true``, which only revives built-in types, and
an LLM engine can serialize inputs and parse outputs without conversion code.

Each engine method takes one ``*Input`` and returns one output type; see ``agent.engine``.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

Language = Literal["zh", "en"]
Route = Literal["direct_answer", "single_retrieval", "multi_retrieval", "clarify"]
Stage = Literal["understanding", "searching", "evaluating", "writing", "verifying"]


class CitedDoc(TypedDict):
    n: int
    doc_id: str
    title: str
    source: str
    chunk_ids: list[int]
    kb: NotRequired[str]  # set when the conversation spans several knowledge bases


class Turn(TypedDict):
    """One finished turn of the thread, kept in checkpointed memory for follow-ups."""

    question: str
    rewritten: str
    entities: list[str]
    answer: str
    cited: list[CitedDoc]
    refused: bool
    route: str
    kbs: NotRequired[list[str]]  # the KBs it searched, several-KB conversations only ([]: none)


class Facets(TypedDict):
    """What exists in the knowledge base for the asker (``store.search.kb_facets``)."""

    doc_types: list[str]
    titles: list[str]
    sources: list[str]


class FilterSpec(TypedDict):
    doc_types: list[str]
    sources: list[str]


class Passage(TypedDict):
    """A retrieved chunk in the context pool."""

    chunk_id: int
    doc_id: str
    title: str
    source: str
    doc_type: str
    heading_path: list[str]
    text: str
    score: float
    rank: int  # rank within the search that found it (0 = best)
    round: int
    sub_id: str
    kb: NotRequired[str]  # the knowledge base it came from
    date: NotRequired[str]  # its document's own date ("2025-03-17"), when the metadata gives one


# ---------------------------------------------------------------- understand

class TopicEvidence(TypedDict):
    """What searching the question alone found, for telling a follow-up from a new topic."""

    confident: bool  # a passage holds enough of the question's own terms to answer from
    overlap: bool  # the search found a document the thread's latest answer cited


class UnderstandInput(TypedDict):
    question: str
    history: list[Turn]
    evidence: NotRequired[TopicEvidence]  # absent: decide from the question's words alone


class ThreadContext(TypedDict):
    words: list[str]
    doc_ids: list[str]


class Understanding(TypedDict):
    query: str  # standalone rewrite (equals the question when nothing needed resolving)
    language: Language
    is_followup: bool
    entities: list[str]  # salient terms: names, products, error codes
    expansions: list[str]  # synonyms added for keyword recall
    time_range: str | None
    metrics: list[str]
    implicit_context: list[str]  # what the rewrite borrowed from earlier turns
    # An ellipsis that names a new value for the earlier question's slot, restated as that
    # question ("那丧假呢？" -> "丧假有几天？"): plan, answer and checks read it as asked.
    restated: NotRequired[str]
    # A question asked as it stands in a thread: the thread's topic words and the documents
    # its latest answer cited. Inside those documents the words break ties in sentence
    # choice ("要补班的是哪天？" after a question about one holiday is about that holiday's
    # row). Never searched, never required.
    thread_context: NotRequired[ThreadContext]
    # A follow-up: the documents the thread's latest answer cited, where the words the
    # rewrite carried in (``implicit_context``) were already found to be the topic.
    carried_from: NotRequired[list[str]]
    # Query term -> its translations into the KB's other language that the KB holds
    # (store.crosslang); the offline rules count a term held when a text holds one.
    translated_terms: NotRequired[dict[str, list[str]]]
    # The same read wider (a word of many senses also in those it is first of): whether the
    # evidence speaks of a term at all, for the refusal gate; too loose to rank sentences by.
    translated_senses: NotRequired[dict[str, list[str]]]
    # A follow-up saying the asker already did what the thread's latest answer said ("it's
    # still high after those steps", "试过了还是不行"): that answer, whose sentences are no
    # answer now.
    tried: NotRequired[str]


# ---------------------------------------------------------------- route

class KbOption(TypedDict):
    """A knowledge base the conversation may search, as the router sees it."""

    name: str
    about: str  # the admin's description, else the summary derived at ingest
    share: float  # of the question's words, weighted by rarity, that it explains (0..1)


class Spread(TypedDict):
    """How widely the KB holds a question's topic words: of its ``documents`` (those the
    asker may read), how many hold each word."""

    documents: int
    holding: dict[str, int]


class RouteInput(TypedDict):
    question: str
    understanding: Understanding
    facets: Facets
    # Only for a question of one or two topic words (agent.vague): their spread.
    spread: NotRequired[Spread]
    # What the thread's earlier turns were about (absent or empty at a thread's start).
    thread_topic: NotRequired[list[str]]
    # Only when the conversation spans several KBs: each with the offline rule's scores.
    knowledge_bases: NotRequired[list[KbOption]]


class ClarifyRequest(TypedDict):
    question: str
    options: list[str]  # at most three, drawn from the KB


class RouteDecision(TypedDict):
    route: Route
    reason: str
    clarification: ClarifyRequest | None  # set when route == "clarify"
    kbs: NotRequired[list[str]]  # the knowledge bases to search, when the engine chose


class KbChoice(TypedDict):
    """Which of the conversation's knowledge bases a turn searches, and why (traced)."""

    kbs: list[str]
    reason: str
    shares: dict[str, float]


# ---------------------------------------------------------------- plan

class SubQuestion(TypedDict):
    id: str
    query: str
    depends_on: list[str]  # ids whose findings (bridge entity) rewrite this query
    filters: FilterSpec
    entity: NotRequired[str]  # the bridge name a hop follows (offline multi-hop chains)


class PlanInput(TypedDict):
    question: str
    understanding: Understanding
    route: Route
    facets: Facets


class Plan(TypedDict):
    sub_questions: list[SubQuestion]


class BridgeInput(TypedDict):
    """A dependent sub-question to rewrite with what its dependencies found."""

    sub_question: SubQuestion
    found: list[Passage]  # passages retrieved for the dependencies


class Bridge(TypedDict):
    query: str
    bridge_entity: str | None


# ---------------------------------------------------------------- evaluate

class EvaluateInput(TypedDict):
    question: str
    understanding: Understanding
    plan: Plan
    passages: list[Passage]  # the whole pool so far
    new_chunk_ids: list[int]  # found this round and not before
    round: int  # 1-based round just finished
    max_rounds: int
    searches: NotRequired[list[SearchRecord]]  # every search so far, in order


class Evaluation(TypedDict):
    sufficient: bool
    missing: list[str]  # entities/terms without support in the pool
    next_queries: list[SubQuestion]  # empty when sufficient
    reason: str
    chain: NotRequired[list[str]]  # doc ids of a multi-hop chain, anchor first
    related: NotRequired[list[str]]  # other docs the question names or hops landed on


# ---------------------------------------------------------------- generate / verify

class Sentence(TypedDict):
    text: str
    cites: list[int]  # passage indexes (1-based ``n`` of GenerateInput.passages)
    # The bot's own words (what is missing, that two documents disagree), not a quote:
    # verify does not look for them in a passage.
    note: NotRequired[bool]


class GenerateInput(TypedDict):
    question: str
    understanding: Understanding
    route: Route
    queries: list[str]  # every query searched this turn (sub-questions, bridge hops)
    passages: list[Passage]  # numbered 1..N in this order
    attempt: int  # 0 first, 1 after a failed verification
    rejected: list[str]  # sentences the verifier rejected last attempt
    chain: NotRequired[list[str]]  # doc ids of a multi-hop chain (see Evaluation.chain)


class Draft(TypedDict):
    sentences: list[Sentence]
    refused: bool
    text: str  # the answer as shown, with [n] markers


class VerifyInput(TypedDict):
    question: str
    draft: Draft
    passages: list[Passage]


class Verdict(TypedDict):
    supported: bool
    unsupported: list[str]  # sentence texts without support in their cited passages
    reason: str


# ---------------------------------------------------------------- graph state

class TraceStep(TypedDict):
    node: str
    input: dict[str, Any]
    output: dict[str, Any]
    ms: float


class SearchRecord(TypedDict):
    """One search of the turn: what was asked and what came back, in rank order."""

    id: str
    query: str
    round: int
    filters: FilterSpec
    chunk_ids: list[int]
    doc_ids: list[str]
    bridge_entity: str | None


class GraphState(TypedDict, total=False):
    """The checkpointed state of one thread. Per-turn fields are reset by ``understand``."""

    # turn input (kb, principals and trace id come with the run context)
    question: str
    # thread memory (survives turns)
    history: list[Turn]
    kbs: list[str]  # the knowledge bases the latest turn searched (follow-ups stay there)
    kb_labels: dict[str, str]  # clarify option -> KB name, when the options were KBs
    # per turn
    understanding: Understanding
    decision: RouteDecision
    clarify_reply: str | None
    plan: Plan
    passages: list[Passage]
    round: int
    searches: list[SearchRecord]
    round_chunk_ids: list[int]  # everything the latest round found
    last_new_chunk_ids: list[int]  # ... of which not seen in earlier rounds
    evaluation: Evaluation
    pending_queries: list[SubQuestion]
    context: list[Passage]  # the deduplicated, trimmed pool given to generate and verify
    draft: Draft
    rejected: list[str]
    verdict: Verdict
    attempts: int
    used_fallback_query: bool
    result: dict[str, Any]


def asked(state: GraphState) -> str:
    """The question as the answer steps read it: the turn's question, or its restatement
    when it was an ellipsis naming a new value for the earlier question's slot."""
    u = state.get("understanding")
    return (u.get("restated") if u else None) or state["question"]
