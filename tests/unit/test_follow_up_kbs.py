"""Which KBs a follow-up searches: the thread's (from its latest answered turn) unless two
or more of the asker's own words single out another KB; weaker signs widen the search."""

from __future__ import annotations

from typing import Any

from agent.nodes.kb_choice import follow_up_choice, stands_for_earlier, thread_kbs
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


def test_two_words_singling_out_another_kb_move_the_thread() -> None:
    moved = follow_up_choice(["hr"], _own(["it"]), {}, own_words=2)
    assert moved["kbs"] == ["it"]
    assert moved["reason"].startswith("topic changed")


def test_a_weaker_sign_searches_other_kbs_after_the_threads() -> None:
    one_word = follow_up_choice(["hr"], _own(["it"]), {}, own_words=1)
    assert one_word["kbs"] == ["hr", "it"]
    assert one_word["reason"].startswith("follow-up")
    two_kbs = follow_up_choice(["hr"], _own(["it", "eng"]), {}, own_words=3)
    assert two_kbs["kbs"] == ["hr", "it", "eng"]


def test_own_words_the_threads_kbs_hold_or_no_kb_stands_for_keep_the_thread() -> None:
    for own in (["hr"], ["it", "hr"], list(KBS)):
        assert follow_up_choice(["hr"], _own(own), {}, own_words=3)["kbs"] == ["hr"], own


def test_words_around_a_pronoun_for_the_threads_topic_widen_instead_of_moving() -> None:
    widened = follow_up_choice(["hr"], _own(["it"]), {}, own_words=3, points_back=True)
    assert widened["kbs"] == ["hr", "it"]
    assert widened["reason"].startswith("follow-up")


def test_a_rewrite_that_replaced_a_word_points_back_one_that_only_added_does_not() -> None:
    assert stands_for_earlier("Can it be split into two blocks?",
                              "Can parental leave be split into two blocks?")
    assert stands_for_earlier("它能退吗？", "蓝牙耳机能退吗？")
    # an ellipsis keeps every word of the question; the topic is only added
    assert not stands_for_earlier("那保修呢？", "笔记本，电脑，那保修呢？")
    assert not stands_for_earlier("What about contractors?",
                                  "What about contractors? parental leave")
