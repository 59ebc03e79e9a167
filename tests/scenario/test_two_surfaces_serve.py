"""One `ragbot serve --http` for Slack and Teams at once: both surfaces on one port, their
questions answered by the same worker processes, each reply going back to its own surface."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.teams_connector import FakeConnector
from tests.fakes.teams_issuer import FakeIssuer
from tests.scenario.conftest import PUBLIC, SECRET, block_text
from tests.scenario.fake_slack import FakeSlack
from tests.scenario.signed import SlackSender
from tests.scenario.teams_harness import Teams, claims, serve, teams_env

pytestmark = [pytest.mark.scenario, pytest.mark.db, pytest.mark.model]
__all__ = ["teams_env"]  # fixture


@pytest.fixture
def both(teams_env: dict[str, str], fake_slack: FakeSlack, fake_issuer: FakeIssuer,
         fake_connector: FakeConnector, tmp_path: Path) -> Iterator[tuple[SlackSender, Teams]]:
    env = {**teams_env, "SLACK_BOT_TOKEN": "xoxb-both", "SLACK_SIGNING_SECRET": SECRET,
           "SLACK_API_URL": fake_slack.url}
    log: list[str] = []
    proc, port = serve(env, log)
    try:
        base = f"http://127.0.0.1:{port}"
        yield (SlackSender(f"{base}/slack/events", SECRET, team_id=fake_slack.team_id),
               Teams(f"{base}/api/messages", fake_issuer, fake_connector, log, proc))
    finally:
        proc.terminate()
        # turns in flight finish first and the job process stops after them: on a loaded
        # 2-core box that took 37 s once
        proc.wait(90)


def test_slack_and_teams_questions_are_answered_side_by_side(
        both: tuple[SlackSender, Teams], fake_slack: FakeSlack) -> None:
    slack, teams = both
    event = slack.mention(PUBLIC, "<@UBOT> How do I roll back a bad deployment?")
    assert slack.event(event).status == 200
    conv = "a:carol-1on1"
    assert teams.send(teams.message("personal", "Redis is out of memory, what now?",
                                    conv=conv)).status_code == 200
    answered = fake_slack.wait_for(lambda f: [
        m for m in f.messages(PUBLIC) if m.get("thread_ts") == event["ts"]
        and "roll" in block_text(m).lower() and "Sources" in block_text(m)], timeout=120)
    assert answered
    answer = teams.final(conv, timeout=120)[0]
    assert claims(answer)
    # each reply went to its own surface: nothing of the Teams question reached Slack
    assert not [m for m in fake_slack.messages(PUBLIC) if "redis" in block_text(m).lower()
                and "roll" not in block_text(m).lower()]
    assert not [m for m in teams.connector.messages(conv) if "roll back" in str(m.get("text"))]
