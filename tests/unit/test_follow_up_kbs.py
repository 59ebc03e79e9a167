"""Which KBs a follow-up searches: the thread's (from its latest answered turn) unless the
asker's own words single out another KB; two other KBs are searched after the thread's."""

from __future__ import annotations

from typing import Any

from agent.nodes.kb_choice import follow_up_choice, thread_kbs
from agent.state import GraphState, KbChoice, Turn

KBS = ("hr", "it", "eng", "finance")


def _turn(refused: bool = False, **extra: Any) -> Turn:
    turn = Turn(question="q", rewritten="q", entities=[], answer="a", cited=[],
                refused=refused, route="single_retrieval")
    turn.update(extra)  # type: ignore[typeddict-item]
    return turn


def _own(kbs: list[str]) -> KbChoice:
    return KbChoice(kbs=kbs, reason="own words", shares={k: 0.5 for k in kbs})


def test_a_follow_up_stays_with_the_latest_answered_turns_kbs_not_a_refused_ones() -> None:
    state = GraphState(history=[_turn(kbs=["hr"]), _turn(refused=True, kbs=["it"])],
                       kbs=["it"])
    assert thread_kbs(state, KBS) == ["hr"]


def test_a_reply_that_searched_nothing_lends_no_kbs_and_no_answer_means_none() -> None:
    assert thread_kbs(GraphState(history=[_turn(kbs=["eng"]), _turn(kbs=[])]), KBS) == ["eng"]
    assert thread_kbs(GraphState(history=[_turn(refused=True, kbs=["it"])], kbs=["it"]),
                      KBS) == []
    assert thread_kbs(GraphState(history=[]), KBS) == []


def test_turns_stored_without_their_kbs_fall_back_to_the_latest_turns() -> None:
    assert thread_kbs(GraphState(history=[_turn()], kbs=["hr", "gone"]), KBS) == ["hr"]


def test_one_other_kb_moves_the_thread_two_others_are_searched_after_it() -> None:
    moved = follow_up_choice(["hr"], _own(["it"]), {})
    assert moved["kbs"] == ["it"]
    assert moved["reason"].startswith("topic changed")
    widened = follow_up_choice(["hr"], _own(["it", "eng"]), {})
    assert widened["kbs"] == ["hr", "it", "eng"]
    assert widened["reason"].startswith("follow-up")
    for own in (["hr"], ["it", "hr"], list(KBS)):
        assert follow_up_choice(["hr"], _own(own), {})["kbs"] == ["hr"], own
