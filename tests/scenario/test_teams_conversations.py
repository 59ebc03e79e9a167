"""Teams through the conversation core, end to end against the real `ragbot serve --http`:
channel reply chains, who sees what (with the restricted notice), and admin commands with
their reindex job reporting back in the chat."""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.scenario.conftest import ADMIN, KB, PRIVATE
from tests.scenario.teams_harness import Teams, claims, new_id, teams, teams_env

pytestmark = [pytest.mark.scenario, pytest.mark.db, pytest.mark.model]
__all__ = ["teams", "teams_env"]  # fixtures

GENERAL = "19:general@thread.tacv2"
SHARED = "19:partners@thread.tacv2"
SALARY = "2027年的调薪预算比例是多少？"


def _chain(channel: str) -> tuple[str, str]:
    """A new reply chain in ``channel``: (root activity id, its conversation id)."""
    root = new_id()
    return root, f"{channel};messageid={root}"


def _text(msg: dict[str, Any]) -> str:
    return str(msg.get("text") or "")


def _restricted_free(text: str) -> bool:
    return "6.5" not in text


def _ask_channel(teams: Teams, channel: str, text: str, *, user: str = "aad-alice",
                 channel_type: str = "standard") -> dict[str, Any]:
    root, conv = _chain(channel)
    teams.send(teams.message("channel", text, conv=conv, mention=True, user=user,
                             channel_type=channel_type, activity_id=root))
    return teams.final(conv)[0]


def test_channel_mention_then_a_reply_chain_follow_up_without_mention(teams: Teams) -> None:
    root, conv = _chain(GENERAL)
    teams.send(teams.message("channel", "How long is the canary watched before promoting?",
                             conv=conv, mention=True, activity_id=root))
    first = teams.final(conv)[0]
    assert claims(first)
    assert "15" in _text(first)
    # a status message was posted in the chain and edited into the answer: no streaming
    requests = teams.connector.requests(conv)
    assert requests[0].body["replyToId"] == root
    assert requests[0].body["type"] == "message"
    assert any(r.method == "PUT" for r in requests)
    assert not [r for r in requests if r.body.get("type") == "typing"]
    # a reply in that chain, no mention: a follow-up in the same thread
    teams.send(teams.message("channel", "and how do I abort the canary?", conv=conv))
    second = teams.final(conv, 2)[1]
    assert claims(second)
    assert "deployctl" in _text(second)  # answered in the chain, from the procedure
    # an unmentioned message in a chain the bot never answered is not for it
    other_root, other = _chain(GENERAL)
    teams.send(teams.message("channel", "lunch at noon?", conv=other,
                             activity_id=other_root))
    time.sleep(2.0)
    assert teams.connector.requests(other) == []


def test_who_sees_what_and_the_restricted_notice(teams: Teams) -> None:
    # a private channel whose id the salary document names: restricted text is answered
    assert "6.5" in _text(_ask_channel(teams, PRIVATE, SALARY, channel_type="private"))
    # the allowed user in a standard channel: the plain refusal there, the notice alone
    # in their 1:1 chat
    public = _ask_channel(teams, GENERAL, SALARY, user=ADMIN)
    assert _restricted_free(_text(public))
    notes = teams.connector.wait_for(
        lambda c: c.messages(f"a:1on1-{ADMIN}") or None, timeout=30)
    assert "私聊" in _text(notes[0])
    assert _restricted_free(_text(notes[0]))
    # a shared channel never uses restricted documents, nor does a 1:1 chat with someone
    # from another tenant, even the allowed user
    assert _restricted_free(_text(_ask_channel(teams, SHARED, SALARY, user=ADMIN,
                                               channel_type="shared")))
    guest = "a:guest-1on1"
    teams.send(teams.message("personal", SALARY, conv=guest, user=ADMIN,
                             sender_tenant="tenant-elsewhere"))
    assert _restricted_free(_text(teams.final(guest)[0]))
    # 1:1: the allowed user reads it, another user does not
    mine = "a:admin-1on1"
    teams.send(teams.message("personal", SALARY, conv=mine, user=ADMIN))
    assert "6.5" in _text(teams.final(mine)[0])
    theirs = "a:alice-1on1"
    teams.send(teams.message("personal", SALARY, conv=theirs))
    assert _restricted_free(_text(teams.final(theirs)[0]))


def test_reindex_by_an_admin_reports_back_in_the_chat_and_others_are_refused(
        teams: Teams) -> None:
    theirs = "a:alice-cmd"
    teams.send(teams.message("personal", "reindex", conv=theirs))
    refusal = teams.connector.wait_for(lambda c: c.messages(theirs) or None, timeout=30)
    assert "admin" in _text(refusal[0]).lower()
    mine = "a:admin-cmd"
    teams.send(teams.message("personal", f"reindex {KB}", conv=mine, user=ADMIN))
    done = teams.connector.wait_for(
        lambda c: [m for m in c.messages(mine) if "finished" in _text(m)] or None,
        timeout=240)
    texts = [_text(m) for m in teams.connector.messages(mine)]
    assert any("started" in t for t in texts), texts
    assert KB in _text(done[0])
