"""When the LLM engine lets its fallback's rule decide alone, without a model call.

Rules first, as the design intends: each step asks the model only where the offline rule is
unsure, so a simple standalone question costs an evaluate vote and the answer (two calls)
instead of seven. Each predicate reads the step's input and the rule's own decision.
"""

from __future__ import annotations

from agent.kb_route import pick
from agent.offline.route import is_multi_question
from agent.question_shape import is_composed
from agent.state import (
    EvaluateInput,
    Evaluation,
    Plan,
    PlanInput,
    RouteDecision,
    RouteInput,
    UnderstandInput,
)


def _one_lookup(question: str) -> bool:
    """Reads as one lookup: no comparison, no relative clause, not two questions in one."""
    return not is_composed(question) and not is_multi_question(question)


def understood_by_rule(inp: UnderstandInput) -> bool:
    """A first question of its thread needs no rewrite: there is nothing to resolve from."""
    return not inp["history"]


def routed_by_rule(inp: RouteInput, rule: RouteDecision) -> bool:
    """The rule's route stands unless it asks to clarify (the model may find the question
    clear, and words its own question), a question of one search reads as composed (a chain
    the rule did not split), or several KBs hold the question's words alike."""
    if rule["route"] == "clarify":
        return False
    if rule["route"] == "single_retrieval" and not _one_lookup(inp["question"]):
        return False
    options = inp.get("knowledge_bases")
    if options:
        names = [o["name"] for o in options]
        kbs, _ = pick({o["name"]: o["share"] for o in options}, names)
        return len(kbs) == 1
    return True


def planned_by_rule(inp: PlanInput, rule: Plan) -> bool:
    """One search for a simple question: the rule's single sub-question is the question."""
    return (inp["route"] == "single_retrieval" and len(rule["sub_questions"]) == 1
            and _one_lookup(inp["question"]))


def one_vote_enough(inp: EvaluateInput, rule: Evaluation, *, certain: bool) -> bool:
    """Whether a first vote of "sufficient" decides alone: only for a simple question (one
    sub-question, the first round, no chain the rule followed, ``_one_lookup``) when the
    vote is certain and the rule agrees. A multi-hop question always gets the strict second
    vote: a lenient first vote and the rule can agree on a pool that lacks the second hop."""
    simple = (len(inp["plan"]["sub_questions"]) == 1 and inp["round"] == 1
              and not rule.get("chain") and _one_lookup(inp["question"]))
    return simple and certain and rule["sufficient"]
