"""manifest.yml: the Slack app the README tells people to create."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

MANIFEST = Path(__file__).resolve().parents[2] / "manifest.yml"

# Each event the bot handles and the bot scope Slack requires to deliver it.
EVENT_SCOPES = {
    "app_mention": "app_mentions:read",
    "message.channels": "channels:history",
    "message.groups": "groups:history",
    "message.im": "im:history",
    "reaction_added": "reactions:read",
    "reaction_removed": "reactions:read",
}


def _manifest() -> dict[str, Any]:
    data = yaml.safe_load(MANIFEST.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def test_manifest_subscribes_to_every_event_with_its_scope() -> None:
    m = _manifest()
    events = m["settings"]["event_subscriptions"]["bot_events"]
    scopes = set(m["oauth_config"]["scopes"]["bot"])
    assert set(events) == set(EVENT_SCOPES)
    assert {EVENT_SCOPES[e] for e in events} <= scopes
    # what the bot calls besides: answers, channel lookups, the command, assistant status
    assert {"chat:write", "channels:read", "groups:read", "im:read", "commands",
            "assistant:write"} <= scopes


def test_manifest_has_the_command_interactivity_and_socket_mode() -> None:
    m = _manifest()
    (command,) = m["features"]["slash_commands"]
    assert command["command"] == "/ragbot"
    assert m["settings"]["interactivity"]["is_enabled"] is True
    assert m["settings"]["socket_mode_enabled"] is True
    urls = {command["url"], m["settings"]["interactivity"]["request_url"],
            m["settings"]["event_subscriptions"]["request_url"]}
    assert all(u.endswith("/slack/events") for u in urls)  # what `ragbot serve --http` serves
    assert len(m["display_information"]["name"]) <= 35
    assert m["features"]["bot_user"]["display_name"]
