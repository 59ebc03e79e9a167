"""`ragbot serve --http` with Teams alone: real Bot Framework tokens from the local issuer,
answers through the local Bot Connector, the sample knowledge base and the real agent."""

from __future__ import annotations

import time

import pytest

from tests.scenario.teams_harness import Teams, claims, is_answer, teams, teams_env

pytestmark = [pytest.mark.scenario, pytest.mark.db, pytest.mark.model]
__all__ = ["teams", "teams_env"]  # fixtures


def test_bad_tokens_get_401_and_nothing_is_processed(teams: Teams) -> None:
    act = teams.message("personal", "How do I roll back a deployment?", conv="a:bad")
    service = act["serviceUrl"]
    bad = {
        "no token": None,
        "unknown key": "Bearer " + teams.issuer.activity_token(service, unknown_key=True),
        "wrong audience": "Bearer " + teams.issuer.activity_token(service, audience="x"),
        "expired": "Bearer " + teams.issuer.activity_token(service, expires_in_s=-900),
    }
    for case, header in bad.items():
        assert teams.send(act, token=header or "").status_code == 401, case
    time.sleep(1.0)
    assert teams.connector.requests() == []


def test_personal_question_streams_progress_then_a_cited_answer_and_follow_up(
        teams: Teams) -> None:
    conv = "a:alice-1on1"
    started = time.monotonic()
    response = teams.send(teams.message("personal", "Redis is out of memory, what now?",
                                        conv=conv))
    assert response.status_code == 200
    assert time.monotonic() - started < 1.0
    answer = teams.final(conv)[0]
    assert claims(answer), answer
    assert answer["channelData"]["feedbackLoop"] == {"type": "default"}
    updates = [r.body for r in teams.connector.requests(conv) if r.body.get("type") == "typing"]
    assert updates
    assert updates[0]["entities"][0]["streamType"] == "informative"
    assert answer["entities"][-1]["streamType"] == "final"
    # the follow-up means nothing without the first question's thread
    teams.send(teams.message("personal", "and if persistence is already on?", conv=conv))
    assert len(teams.final(conv, 2)) == 2


def test_group_chat_without_mention_is_ignored(teams: Teams) -> None:
    conv = "19:groupchat@thread.v2"
    assert teams.send(teams.message("groupChat", "what are the deployment steps?",
                                    conv=conv)).status_code == 200
    time.sleep(2.0)
    assert teams.connector.requests(conv) == []


def test_redelivered_activity_is_answered_once_and_a_429_is_retried(teams: Teams) -> None:
    conv = "a:bob-1on1"
    teams.connector.fail_next(429, retry_after=1, method="POST")
    act = teams.message("personal", "What is the leave policy for new employees?", conv=conv,
                        user="aad-bob")
    assert teams.send(act).status_code == 200
    assert teams.send(act).status_code == 200
    teams.final(conv)
    time.sleep(2.0)
    assert len([m for m in teams.connector.messages(conv) if is_answer(m)]) == 1
    assert next(r.status for r in teams.connector.requests(conv)) == 429
