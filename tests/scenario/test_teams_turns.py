"""Teams turns through the conversation core, end to end against the real
`ragbot serve --http`: clarify by card (a double click runs once, the card is replaced),
the feedback buttons into `ragbot feedback export`, a redelivery across a restart
answered once, and a burst of ten questions acked fast and all answered."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.teams_connector import FakeConnector
from tests.scenario.conftest import KB
from tests.scenario.teams_harness import Teams, claims, is_answer, new_id, serve, teams, teams_env

pytestmark = [pytest.mark.scenario, pytest.mark.db, pytest.mark.model]
__all__ = ["teams", "teams_env"]  # fixtures



def _invoke(teams: Teams, activity: dict[str, Any], name: str,
            value: dict[str, Any]) -> Any:
    invoke = {**activity, "type": "invoke", "name": name, "value": value,
              "id": new_id()}
    invoke.pop("text", None)
    return teams.send(invoke)


def test_clarify_by_card_runs_once_and_replaces_the_card(teams: Teams) -> None:
    conv = "a:carol-1on1"
    ask = teams.message("personal", "the report?", conv=conv, user="aad-carol")
    teams.send(ask)
    card_msg = teams.final(conv)[0]
    (card,) = [a["content"] for a in card_msg["attachments"]]
    actions = card["actions"]
    assert 2 <= len(actions) <= 5
    (choice,) = [a for a in actions if a["data"]["choice"] == "report"]
    click = {**ask, "replyToId": card_msg["id"]}
    value = {"action": {"type": "Action.Execute", "verb": choice["verb"],
                        "data": choice["data"]}}
    replies = [_invoke(teams, click, "adaptiveCard/action", value) for _ in range(2)]
    for reply in replies:  # both clicks see the card replaced by the choice
        body = reply.json()
        assert body["type"] == "application/vnd.microsoft.card.adaptive"
        assert "report" in json.dumps(body["value"])
        assert "actions" not in body["value"]
    answers = teams.final(conv, 2)
    assert "2026 Q3 Returns Report" in json.dumps(claims(answers[1]))
    time.sleep(3.0)
    assert len([m for m in teams.connector.messages(conv) if is_answer(m)]) == 2


def test_feedback_buttons_reach_feedback_export(teams: Teams, teams_env: dict[str, str],
                                                tmp_path: Path) -> None:
    conv = "a:dave-1on1"
    ask = teams.message("personal", "Which product line had the most returns in Q3 2026?",
                        conv=conv, user="aad-dave")
    teams.send(ask)
    answer = teams.final(conv)[0]
    value = {"actionName": "feedback", "actionValue": {
        "reaction": "like", "feedback": json.dumps({"feedbackText": "spot on"})}}
    assert _invoke(teams, {**ask, "replyToId": answer["id"]}, "message/submitAction",
                   value).status_code == 200
    out = tmp_path / "fb"
    deadline = time.monotonic() + 30
    while True:
        done = subprocess.run(  # noqa: S603 (our own CLI)
            [sys.executable, "-c", "import sys; from bot.cli import main; sys.exit(main())",
             "feedback", "export", "--out-dir", str(out), "--kb", KB],
            env=teams_env, capture_output=True, text=True, timeout=120, check=False,
            cwd=Path(__file__).resolve().parents[2])
        assert done.returncode == 0, done.stderr[-2000:]
        lines = (out / "questions.jsonl").read_text(encoding="utf-8").splitlines()
        if lines or time.monotonic() > deadline:
            break
        time.sleep(1.0)
    (question,) = [json.loads(line) for line in lines]
    assert "returns" in question["question"]


def test_a_redelivery_after_a_restart_is_answered_once(
        teams_env: dict[str, str], fake_connector: FakeConnector, teams: Teams) -> None:
    conv = "a:erin-1on1"
    act = teams.message("personal", "How many days of marriage leave are there?", conv=conv,
                        user="aad-erin")
    assert teams.send(act).status_code == 200
    # the first server goes (Teams got its 200); Teams redelivers to the next one
    teams.proc.terminate()  # SIGTERM, as a deployment restarts it
    teams.proc.wait(60)
    first = teams.url
    proc, port = serve(teams_env, [])
    try:
        teams.url = f"http://127.0.0.1:{port}/api/messages"
        assert teams.send(act).status_code == 200
        teams.final(conv, timeout=120)
        time.sleep(3.0)
        assert len([m for m in fake_connector.messages(conv) if is_answer(m)]) == 1
    finally:
        teams.url = first
        proc.terminate()
        proc.wait(30)


def test_a_burst_of_ten_questions_is_acked_fast_and_all_answered(teams: Teams) -> None:
    convs = [f"a:burst-{i}" for i in range(10)]

    def send(conv: str) -> float:
        started = time.monotonic()
        assert teams.send(teams.message("personal", "What must be true before a deploy "
                                        "starts?", conv=conv)).status_code == 200
        return time.monotonic() - started

    with ThreadPoolExecutor(10) as pool:
        acks = list(pool.map(send, convs))
    assert max(acks) < 1.0, acks
    for conv in convs:
        assert teams.final(conv, timeout=240)
