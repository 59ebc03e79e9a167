"""Settings keep their secrets out of reprs, dumps and tracebacks."""

from __future__ import annotations

import pytest

from bot.settings import Settings

SECRETS = {
    "SLACK_BOT_TOKEN": "xoxb-3141-5926-U2V0dGluZ3M",
    "SLACK_SIGNING_SECRET": "8f14e45fceea167a5a36dedd4bea2543",
    "SLACK_APP_TOKEN": "xapp-1-A0-2718-c2V0dGluZ3M",
    "RAGBOT_LLM_API_KEY": "sk-settings-unit-0a1b2c3d4e",
    "DATABASE_URL": "postgresql://ragbot:Quartz-Marlin-55@db:5432/ragbot",
}


def test_secret_settings_never_show_in_repr_or_dump(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    settings = Settings()
    shown = repr(settings) + str(settings) + repr(settings.model_dump())
    for value in SECRETS.values():
        assert value not in shown
    assert settings.slack_bot_token is not None
    assert settings.slack_bot_token.get_secret_value() == SECRETS["SLACK_BOT_TOKEN"]
    assert settings.database_url is not None
    assert settings.database_url.get_secret_value() == SECRETS["DATABASE_URL"]
