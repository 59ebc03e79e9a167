"""Socket Mode end to end: with SLACK_APP_TOKEN set, the bot opens a connection through
``apps.connections.open``, acknowledges each envelope on the websocket, answers in the
thread through the Web API, and answers a redelivered event only once."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from psycopg_pool import ConnectionPool

from tests.scenario.conftest import KB, PUBLIC, block_text
from tests.scenario.fake_slack import FakeSlack
from tests.scenario.fake_socket_mode import FakeSocketMode, event_callback

pytestmark = [pytest.mark.scenario, pytest.mark.db, pytest.mark.model]

APP_TOKEN = "xapp-1-A0001-scenario"  # noqa: S105 (a test token)
QUESTION = "<@UBOT> Which product line had the highest return rate in Q3 2026?"


@dataclass
class SocketBot:
    service: Any
    fake: FakeSlack
    socket: FakeSocketMode

    def mention(self, text: str, ts: str) -> dict[str, Any]:
        return {"type": "app_mention", "user": "U1", "text": text, "channel": PUBLIC,
                "ts": ts, "event_ts": ts, "team": self.fake.team_id}

    def deliver(self, event: dict[str, Any], event_id: str, **retry: Any) -> dict[str, Any]:
        """Send ``event`` as an envelope and return the bot's acknowledgement."""
        payload = event_callback(event, team_id=self.fake.team_id, event_id=event_id)
        return self.socket.wait_ack(self.socket.send_event(payload, **retry))

    def shown(self, channel: str, turn: Any) -> dict[str, Any] | None:
        """The message showing ``turn``'s outcome (see ``Bot.shown``)."""
        from store import conversations as journal

        with self.service.deps.pool.connection() as conn:
            ids = journal.bot_messages_of_turn(conn, turn.id)
        return self.fake.message(channel, ids[0] if ids else turn.status_id or "")

    def wait_done(self, ts: str, timeout: float = 60.0) -> Any:
        """The finished turn for the message ``ts`` in PUBLIC."""
        from store import conversations as journal

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.service.deps.pool.connection() as conn:
                turns = journal.turns_for_message(conn, "slack", PUBLIC, ts)
            done = next((t for t in turns if t.state in ("done", "failed")), None)
            if done:
                return done
            time.sleep(0.05)
        raise TimeoutError(f"turn not done; calls: {[c.method for c in self.fake.calls()]}")


@pytest.fixture
def socket_bot(fake_slack: FakeSlack, scenario_pool: ConnectionPool, embedder: Any,
               tmp_path: Path) -> Iterator[SocketBot]:
    """The bot as ``ragbot serve`` runs it with SLACK_APP_TOKEN set: SlackService's Socket
    Mode entry point, blocking in its own thread."""
    from agent.api import build_agent
    from bot.settings import Settings
    from bot.slack.app import create_deps
    from bot.slack.service import SlackService

    settings = Settings(
        RAGBOT_HOME=str(tmp_path), SLACK_BOT_TOKEN="xoxb-scenario",  # noqa: S106
        SLACK_SIGNING_SECRET=None, SLACK_APP_TOKEN=APP_TOKEN,
        SLACK_API_URL=fake_slack.url, RAGBOT_KB=KB)
    agent = build_agent(scenario_pool, embedder)
    with FakeSocketMode() as socket:
        socket.attach(fake_slack)
        service = SlackService(create_deps(settings, pool=scenario_pool, agent=agent))
        runner = threading.Thread(target=service.start_socket_mode, daemon=True,
                                  name="socket-mode-serve")
        runner.start()
        try:
            socket.wait_connected()
            yield SocketBot(service=service, fake=fake_slack, socket=socket)
        finally:
            service.stop()
            runner.join(10)
            agent.close()
        assert not runner.is_alive(), "start_socket_mode() did not return after stop()"


def test_mention_over_socket_mode_is_acked_and_answered_in_its_thread(
        socket_bot: SocketBot) -> None:
    opened = socket_bot.fake.ok_calls("apps.connections.open")
    assert [c.token for c in opened] == [APP_TOKEN]  # the app-level token, not the bot's
    ts = "1600000001.000200"
    ack = socket_bot.deliver(socket_bot.mention(QUESTION, ts), f"Ev{uuid.uuid4().hex[:10]}")
    assert set(ack) <= {"envelope_id", "payload"}
    assert not ack.get("payload")  # events_api acks carry none

    turn = socket_bot.wait_done(ts)
    assert turn.state == "done"
    posts = socket_bot.fake.ok_calls("chat.postMessage")
    assert len(posts) == 1  # the status message, which became the answer
    assert posts[0].body["thread_ts"] == ts
    assert posts[0].token == "xoxb-scenario"  # noqa: S105
    status = block_text(posts[0].body)
    answer = block_text(socket_bot.shown(PUBLIC, turn) or {})
    assert status  # the "working on it" text, later replaced by the answer
    assert status != answer
    assert "Drift" in answer
    assert "2026 Q3 Returns Report" in answer


def test_redelivered_envelope_with_the_same_event_id_is_answered_once(
        socket_bot: SocketBot) -> None:
    ts = "1600000002.000200"
    event = socket_bot.mention(QUESTION, ts)
    event_id = f"Ev{uuid.uuid4().hex[:10]}"
    first = socket_bot.deliver(event, event_id)
    # Slack redelivers an envelope it thinks was not acknowledged in time, with a new
    # envelope id and the retry count; both must be acknowledged
    again = socket_bot.deliver(event, event_id, retry_attempt=1, retry_reason="timeout")
    assert first["envelope_id"] != again["envelope_id"]

    # both were claimed (or refused) before their acks, so the journal is final here
    from store import conversations as journal

    with socket_bot.service.deps.pool.connection() as conn:
        assert len(journal.turns_for_message(conn, "slack", PUBLIC, ts)) == 1
    turn = socket_bot.wait_done(ts)
    assert turn.state == "done"
    posts = socket_bot.fake.ok_calls("chat.postMessage")
    assert [p.body["thread_ts"] for p in posts] == [ts]
    assert "Drift" in block_text(socket_bot.shown(PUBLIC, turn) or {})
