"""No secret reaches a log line: a real Slack API error raised by slack_sdk against the fake
Web API with a known token, and a real failed database connection with a password in its
URL, logged through structlog and through the standard library (as Bolt, slack_sdk and
psycopg do), in JSON and in console rendering."""

from __future__ import annotations

import io
import logging
import socket
from collections.abc import Iterator

import psycopg
import pytest
import structlog
from slack_sdk.errors import SlackApiError

from bot.logging_setup import configure_logging
from bot.slack.client import make_web_client
from tests.scenario.fake_slack import FakeSlack

TOKEN = "xoxb-5150-77120-QmVyZ2Ftb3RTZWNyZXQ"  # noqa: S105 (a test secret)
PASSWORD = "Cobalt-Heron-4471"  # noqa: S105 (a test secret)


@pytest.fixture
def log_stream() -> Iterator[io.StringIO]:
    """Logging configured the way ``main()`` does, into a buffer; restored afterwards."""
    root = logging.getLogger()
    saved = (root.handlers[:], root.level, structlog.get_config())
    yield io.StringIO()
    root.handlers[:], level, config = saved
    root.setLevel(level)
    structlog.configure(**config)


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize("fmt", ["json", "console"])
def test_slack_token_and_db_password_never_reach_the_logs(
        fmt: str, fake_slack: FakeSlack, log_stream: io.StringIO) -> None:
    configure_logging("DEBUG", fmt, stream=log_stream)
    log = structlog.get_logger("bot.slack")
    bolt = logging.getLogger("slack_bolt.App")

    client = make_web_client(TOKEN, fake_slack.url)
    with pytest.raises(SlackApiError) as slack_error:
        client.chat_update(channel="C0PUBLIC", ts="1700000000.000001", text="edited")
    assert slack_error.value.response["error"] == "message_not_found"
    try:
        client.chat_update(channel="C0PUBLIC", ts="1700000000.000002", text="again")
    except SlackApiError:
        log.exception("slack_update_failed", channel="C0PUBLIC")
        bolt.exception("Failed to run listener function (error: %s)", "message_not_found")
    bolt.warning("request headers %s", {"Authorization": f"Bearer {TOKEN}"})
    log.info("client_ready", client_token=TOKEN)

    url = f"postgresql://ragbot:{PASSWORD}@127.0.0.1:{_closed_port()}/ragbot"
    try:
        psycopg.connect(url, connect_timeout=2)
    except psycopg.OperationalError:
        log.exception("db_unreachable", url=url)
        logging.getLogger("psycopg.pool").exception("error connecting to %s", url)

    out = log_stream.getvalue()
    assert "slack_update_failed" in out
    assert "db_unreachable" in out
    assert "message_not_found" in out
    assert "Traceback" in out or '"exc_type"' in out
    assert TOKEN not in out
    assert TOKEN.split("-", 1)[1] not in out
    assert PASSWORD not in out
