"""Teams binds conversations to sets of knowledge bases as Slack does: a 1:1 chat answers
from ``RAGBOT_DM_KBS``, a channel from its ``RAGBOT_CHANNEL_KBS`` entry, and the citations
name the KB (through the real ``ragbot serve --http`` and the local Bot Connector)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.teams_connector import FakeConnector
from tests.fakes.teams_issuer import FakeIssuer
from tests.multikb_corpus import ingest_kbs
from tests.scenario.teams_harness import Teams, claims, new_id, serve, teams_env

pytestmark = [pytest.mark.scenario, pytest.mark.db, pytest.mark.model]
__all__ = ["teams_env"]  # fixture

CHANNEL = "19:engineering@thread.tacv2"
LEAVE = "How many weeks of paid parental leave do new parents get?"


@pytest.fixture
def kb_teams(teams_env: dict[str, str], scenario_pool: Any, embedder: Any, tmp_path: Path, *,
             fake_issuer: FakeIssuer, fake_connector: FakeConnector) -> Iterator[Teams]:
    ingest_kbs(scenario_pool, embedder, tmp_path / "kbs")
    env = {**teams_env, "RAGBOT_DM_KBS": "hr+it+eng",
           "RAGBOT_CHANNEL_KBS": f"{CHANNEL}=it+eng"}
    log: list[str] = []
    proc, port = serve(env, log)
    try:
        yield Teams(f"http://127.0.0.1:{port}/api/messages", fake_issuer, fake_connector,
                    log, proc)
    finally:
        proc.terminate()
        try:
            proc.wait(120)  # its worker processes drain first: slow on a busy machine
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(30)


def _names(msg: dict[str, Any]) -> list[str]:
    """The cited sources' names (none for a refusal, which has no citation entity)."""
    if not any(e.get("@type") == "Message" for e in msg.get("entities") or []):
        return []
    return [str(c["appearance"]["name"]) for c in claims(msg)]


def _ask_channel(teams: Teams, text: str) -> dict[str, Any]:
    root = new_id()
    conv = f"{CHANNEL};messageid={root}"
    teams.send(teams.message("channel", text, conv=conv, mention=True, activity_id=root))
    return teams.final(conv)[0]


def test_one_to_one_chat_uses_dm_kbs_and_a_channel_its_own_set(kb_teams: Teams) -> None:
    chat = "a:alice-1on1"
    kb_teams.send(kb_teams.message("personal", LEAVE, conv=chat))
    answer = kb_teams.final(chat)[0]
    assert "20 weeks" in str(answer["text"])
    assert _names(answer) == ["Parental Leave Policy (hr)"]  # hr, one of the DM's three

    release = _ask_channel(kb_teams, "Which day do services ship on the release train?")
    assert "Thursday" in str(release["text"])
    assert _names(release) == ["Release Train (eng)"]
    # hr is not bound to the channel: its leave policy is out of reach there
    leave = _ask_channel(kb_teams, LEAVE)
    assert "20 weeks" not in str(leave["text"])
    assert not [n for n in _names(leave) if n.endswith("(hr)")]
