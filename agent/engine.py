"""The decision-making seam of the graph: one method per decision node.

Every method takes one JSON-able input (``agent.state``) and returns one JSON-able output,
with no I/O of its own beyond what the engine was built with. That makes an engine easy to
wrap: ``LLMEngine`` (agent/llm.py) calls the model for a step and, when the reply is
malformed or the call fails, returns ``OfflineEngine``'s answer for that same input.

``OfflineEngine`` (rules, lexical and model scores, extractive answers) is deterministic and
needs no network; it is the default.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, runtime_checkable

from agent.offline.engine import OfflineEngine
from agent.state import (
    Bridge,
    BridgeInput,
    Draft,
    EvaluateInput,
    Evaluation,
    GenerateInput,
    Passage,
    Plan,
    PlanInput,
    RouteDecision,
    RouteInput,
    Sentence,
    TopicEvidence,
    Turn,
    Understanding,
    UnderstandInput,
    Verdict,
    VerifyInput,
)

__all__ = ["Engine", "OfflineEngine", "OnSentence"]

# A sentence of the draft being written (its index, in order), not yet checked.
OnSentence = Callable[[int, Sentence], None]


@runtime_checkable
class Engine(Protocol):
    """Decisions of the graph. Implementations must not mutate their inputs."""

    name: str

    @property
    def probe_depth(self) -> int:
        """How many of the question's own hits ``topic_evidence`` reads (the probe's depth)."""
        ...

    def topic_evidence(self, question: str, found: list[Passage], history: list[Turn],
                       alternatives: dict[str, list[str]]) -> TopicEvidence:
        """What a search of a follow-up alone (``found``, best first) says about its topic,
        for ``understand``: does it name its own, or lean on the thread's?"""
        ...

    def understand(self, inp: UnderstandInput) -> Understanding:
        """Resolve references to earlier turns; return a standalone query and its fields."""
        ...

    def route(self, inp: RouteInput) -> RouteDecision:
        """direct_answer | single_retrieval | multi_retrieval | clarify (with options)."""
        ...

    def plan(self, inp: PlanInput) -> Plan:
        """Sub-questions with explicit dependencies and filters that exist in the KB."""
        ...

    def bridge(self, inp: BridgeInput) -> Bridge:
        """Rewrite a dependent sub-question with the entity its dependencies found."""
        ...

    def evaluate(self, inp: EvaluateInput) -> Evaluation:
        """Is the pool enough to answer? If not, which queries come next."""
        ...

    def generate(self, inp: GenerateInput) -> Draft:
        """An answer in the question's language citing passages as [n], or a refusal."""
        ...

    def generate_streaming(self, inp: GenerateInput,
                           on_sentence: OnSentence | None) -> Draft:
        """``generate``, offering each sentence to ``on_sentence`` as soon as it is written
        (an engine that writes the draft at once may offer none)."""
        ...

    def verify(self, inp: VerifyInput) -> Verdict:
        """Is every sentence of the draft supported by a passage it cites?"""
        ...

    def rule_supports(self, sentence: Sentence, passages: list[Passage]) -> bool:
        """Does the offline rule find ``sentence`` in a passage it cites? No model call:
        what may be shown before the whole draft is verified."""
        ...
