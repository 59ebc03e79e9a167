"""``OfflineEngine``: the default engine, deterministic and without network."""

from __future__ import annotations

from collections.abc import Callable

from agent.offline import evaluate as _evaluate
from agent.offline import generate as _generate
from agent.offline import plan as _plan
from agent.offline import route as _route
from agent.offline import topic as _topic
from agent.offline import understand as _understand
from agent.offline import verify as _verify
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


class OfflineEngine:
    """Rules and lexical scores for every decision (see ``agent.engine.Engine``)."""

    name = "offline"
    probe_depth = _topic.CONFIDENT_WITHIN

    def topic_evidence(self, question: str, found: list[Passage], history: list[Turn],
                       alternatives: dict[str, list[str]]) -> TopicEvidence:
        return _topic.topic_evidence(question, found, history, alternatives)

    def understand(self, inp: UnderstandInput) -> Understanding:
        return _understand.understand(inp)

    def route(self, inp: RouteInput) -> RouteDecision:
        return _route.route(inp)

    def plan(self, inp: PlanInput) -> Plan:
        return _plan.plan(inp)

    def bridge(self, inp: BridgeInput) -> Bridge:
        return _plan.bridge(inp)

    def evaluate(self, inp: EvaluateInput) -> Evaluation:
        return _evaluate.evaluate(inp)

    def generate(self, inp: GenerateInput) -> Draft:
        return _generate.generate(inp)

    def generate_streaming(self, inp: GenerateInput,
                           on_sentence: Callable[[int, Sentence], None] | None) -> Draft:
        return self.generate(inp)  # extractive and at once: the verify node shows it

    def verify(self, inp: VerifyInput) -> Verdict:
        return _verify.verify(inp)

    def rule_supports(self, sentence: Sentence, passages: list[Passage]) -> bool:
        return _verify.sentence_supported(sentence, passages)
