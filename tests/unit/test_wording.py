"""Informal English reads as the handbook writes: chat spellings, compounds, thresholds."""

from __future__ import annotations

from agent.text import content_terms, term_hits
from tests.unit.offline_ask import ask
from tests.unit.test_answerable import passage

ONCALL = ("Engineers on the on-call rota receive a weekly allowance of 800 yuan, paid with "
          "the next month's salary.")


def test_chat_spellings_and_contractions_are_not_topic_words() -> None:
    assert content_terms("whats the vpn client u r supposed to install pls") == [
        "vpn", "client", "supposed", "install"]
    assert content_terms("i cant print, im stuck") == ["print", "stuck"]


def test_ordinary_words_spelled_like_contractions_stay_topic_words() -> None:
    # "shell" is not "she'll", a root cause is not "because".
    assert content_terms("root cause of the shell crash") == ["root", "cause", "shell",
                                                              "crash"]


def test_how_long_asks_for_a_measure_and_names_no_topic() -> None:
    assert content_terms("how long does a laptop repair take?") == ["laptop", "repair",
                                                                   "take"]
    assert content_terms("how often r backups run") == ["backups", "run"]


def test_closed_hyphenated_and_spaced_compounds_are_one_word() -> None:
    assert content_terms("who is on-call tonight") == ["oncall", "tonight"]
    for written in ("The on-call engineer", "The on call engineer", "The oncall engineer"):
        assert term_hits(["oncall"], written) == {"oncall"}
    assert term_hits(["wifi", "login"], "Guest Wi-Fi needs a log in code") == {"wifi",
                                                                             "login"}


def test_threshold_phrasings_are_one_term_in_both_languages() -> None:
    asked = [content_terms(f"who signs off a purchase {cmp} 5000 yuan")
             for cmp in ("more than", "above", "exceeding", "over", "greater than")]
    assert all(terms == asked[0] for terms in asked)
    assert term_hits(["above", "超过"], "单笔 5000 元以上的采购需总监签字") == {"above", "超过"}
    assert term_hits(["above"], "Purchases over $5,000 need a director's signature") == {
        "above"}


def test_over_without_an_amount_and_a_ceiling_are_no_threshold() -> None:
    assert "above" not in content_terms("who handles tickets over the weekend")
    assert term_hits(["above"], "Tickets raised over the weekend wait until Monday.") == set()
    assert "above" not in content_terms("claims of no more than 300 yuan")
    assert term_hits(["above"], "单笔不超过 300 元的报销由上级审批") == set()


def test_a_chat_style_question_is_answered_from_the_hyphenated_policy() -> None:
    draft = ask("whats the weekly oncall allowance", [passage(1, ONCALL, "On-call pay")])
    assert not draft["refused"]
    assert "800 yuan" in draft["text"]


def test_a_threshold_worded_otherwise_than_the_policy_is_answered() -> None:
    # The policy says "over" and "signature"; the asker says "exceeding" and "approves".
    # Only the amount's words are shared: the threshold must count as held.
    policy = "Purchases over 5000 yuan need the finance director's signature."
    for cmp in ("exceeding", "more than", "above"):
        draft = ask(f"who approves purchases {cmp} 5000", [passage(1, policy)])
        assert not draft["refused"], cmp
        assert "finance director" in draft["text"]
