"""``GET /metrics`` of a bot in one process: what Slack asked, what was answered, refused or
voted on, in the Prometheus text format. (Across worker processes: test_slack_serve_cli.)"""

from __future__ import annotations

import time
import urllib.request

import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.scenario.conftest import Bot
from tests.scenario.test_feedback_reactions import ask, react, wait_votes

pytestmark = [pytest.mark.scenario, pytest.mark.db, pytest.mark.model]


def figures(bot: Bot) -> dict[str, float]:
    """Every sample as ``name{label=value,...}`` -> value."""
    with urllib.request.urlopen(f"{bot.base_url}/metrics", timeout=10) as resp:  # noqa: S310
        assert resp.headers["Content-Type"].startswith("text/plain; version=")
        text = resp.read().decode()
    out: dict[str, float] = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            labels = ",".join(f"{k}={v}" for k, v in sorted(s.labels.items()))
            out[f"{s.name}{{{labels}}}"] = s.value
    return out


def test_metrics_count_questions_answers_refusals_votes_and_acks(bot: Bot) -> None:
    assert "ragbot_questions_total{surface=slack}" not in figures(bot)
    _, answer_ts = ask(bot, "How do I deploy to production?")
    ask(bot, "What is the airspeed of an unladen swallow on Mars?")
    react(bot, "reaction_added", answer_ts, "thumbsup", "U2")
    wait_votes(bot, answer_ts, {"U2": 1})
    react(bot, "reaction_removed", answer_ts, "thumbsup", "U2")
    wait_votes(bot, answer_ts, {})

    deadline = time.monotonic() + 10
    while (now := figures(bot)).get("ragbot_votes_total{surface=slack,vote=withdrawn}") != 1:
        assert time.monotonic() < deadline, now
        time.sleep(0.1)
    assert now["ragbot_questions_total{surface=slack}"] == 2
    assert now["ragbot_answers_total{surface=slack}"] == 1
    assert now["ragbot_refusals_total{surface=slack}"] == 1
    assert now["ragbot_answer_seconds_count{surface=slack}"] == 2
    assert now["ragbot_votes_total{surface=slack,vote=up}"] == 1
    # two questions and two reactions, each acknowledged
    assert now["ragbot_acks_total{surface=slack}"] == 4
    assert now["ragbot_ack_seconds_count{surface=slack}"] == 4
    assert now["ragbot_http_requests_total{status=200,surface=slack}"] == 4
    assert "ragbot_failures_total{surface=slack}" not in now
