"""The Teams scenario harness: the real ``ragbot serve --http`` in a subprocess (Teams
alone), real Bot Framework tokens from the local issuer, answers through the local Bot
Connector, the sample knowledge base and the real agent."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.fakes.teams_connector import FakeConnector
from tests.fakes.teams_issuer import FakeIssuer
from tests.scenario.conftest import ADMIN, KB

BOT = "28:ragbot"
_ids = itertools.count(1_700_000_000_001)


def new_id() -> str:
    """A fresh activity id."""
    return str(next(_ids))


@dataclass
class Teams:
    url: str
    issuer: FakeIssuer
    connector: FakeConnector
    log: list[str]
    proc: subprocess.Popen[str]

    def send(self, activity: dict[str, Any], *,
             token: str | None = "good") -> httpx.Response:  # noqa: S107 (a marker)
        service = activity["serviceUrl"]
        header = {"good": "Bearer " + self.issuer.activity_token(service)}.get(
            token or "", token)
        headers = {"Authorization": header} if header else {}
        return httpx.post(self.url, json=activity, headers=headers, timeout=10)

    def message(self, chat: str, text: str, *, conv: str, user: str = "aad-alice",
                mention: bool = False, channel_type: str = "standard",
                activity_id: str | None = None,
                sender_tenant: str | None = None) -> dict[str, Any]:
        aid = activity_id or str(next(_ids))
        entities = []
        if mention:
            text = f"<at>Ragbot</at> {text}"
            entities.append({"type": "mention", "text": "<at>Ragbot</at>",
                             "mentioned": {"id": BOT, "name": "Ragbot"}})
        data: dict[str, Any] = {"tenant": {"id": self.issuer.tenant_id}}
        if chat == "channel":
            # Teams: a channel message's conversation id is "<channel id>;messageid=<root>"
            data["channel"] = {"id": conv.partition(";messageid=")[0], "type": channel_type}
        return {"type": "message", "id": aid, "text": text,
                "serviceUrl": self.connector.service_url, "channelId": "msteams",
                "from": {"id": f"29:{user}", "aadObjectId": user,
                         **({"tenantId": sender_tenant} if sender_tenant else {})},
                "recipient": {"id": BOT, "name": "Ragbot"},
                "conversation": {"id": conv, "conversationType": chat,
                                 "tenantId": self.issuer.tenant_id},
                "channelData": data, "entities": entities}

    def final(self, conv: str, n: int = 1, timeout: float = 90) -> list[dict[str, Any]]:
        """The conversation's messages once ``n`` of them are answers (not status)."""
        def done(c: FakeConnector) -> list[dict[str, Any]] | None:
            msgs = [m for m in c.messages(conv) if is_answer(m)]
            return msgs if len(msgs) >= n else None
        result: list[dict[str, Any]] = self.connector.wait_for(done, timeout)
        return result


def is_answer(msg: dict[str, Any]) -> bool:
    return bool(msg.get("attachments")) or any(
        e.get("@type") == "Message" for e in msg.get("entities") or []) or \
        "Sorry" in str(msg.get("text"))


def claims(msg: dict[str, Any]) -> list[dict[str, Any]]:
    entity = next(e for e in msg["entities"] if e.get("@type") == "Message")
    return list(entity.get("citation") or [])


def serve(env: dict[str, str], log: list[str]) -> tuple[subprocess.Popen[str], int]:
    proc = subprocess.Popen(
        [sys.executable, "-c", "import sys; from bot.cli import main; sys.exit(main())",
         "serve", "--http", "--host", "127.0.0.1", "--port", "0", "--workers", "2"],
        env=env, stderr=subprocess.PIPE, text=True, cwd=Path(__file__).resolve().parents[2])
    assert proc.stderr is not None
    port = None
    deadline = time.monotonic() + 300  # worker processes load the model: slow on a busy box
    while port is None and time.monotonic() < deadline:
        line = proc.stderr.readline()
        if not line:
            break
        log.append(line)
        # Teams alone logs its port when it starts; beside Slack, Slack's listener does
        if "serve_starting" in line or "slack_http_listening" in line:
            port = json.loads(line).get("port")
    threading.Thread(target=lambda: log.extend(proc.stderr or ()), daemon=True).start()
    assert port, "ragbot serve did not start: " + "".join(log[-20:])
    return proc, int(port)


@pytest.fixture
def teams_env(scenario_db: str, fake_issuer: FakeIssuer, tmp_path: Path) -> dict[str, str]:
    env = {**os.environ, "DATABASE_URL": scenario_db, "RAGBOT_HOME": str(tmp_path),
           "RAGBOT_LOG_FORMAT": "json", "HF_HUB_OFFLINE": "1", "RAGBOT_KB": KB,
           "RAGBOT_TEAMS_APP_ID": fake_issuer.app_id,
           "RAGBOT_TEAMS_APP_SECRET": fake_issuer.app_secret,
           "RAGBOT_TEAMS_TENANT_ID": fake_issuer.tenant_id,
           "RAGBOT_TEAMS_ADMINS": ADMIN,
           "RAGBOT_TEAMS_OPENID_METADATA_URL": fake_issuer.metadata_url,
           "RAGBOT_TEAMS_LOGIN_URL": fake_issuer.login_url}
    for name in ("SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET", "SLACK_APP_TOKEN"):
        env.pop(name, None)
    return env


@pytest.fixture
def teams(teams_env: dict[str, str], fake_issuer: FakeIssuer,
          fake_connector: FakeConnector) -> Iterator[Teams]:
    log: list[str] = []
    proc, port = serve(teams_env, log)
    try:
        yield Teams(f"http://127.0.0.1:{port}/api/messages", fake_issuer, fake_connector, log,
                    proc)
    finally:
        proc.terminate()
        proc.wait(30)
