"""The query API on the bot's HTTP server: bearer tokens bound to access principals,
JSON answers and a server-sent event stream, and health."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import pytest
import structlog
from psycopg_pool import ConnectionPool

from tests.scenario.conftest import ADMIN, Bot

pytestmark = [pytest.mark.scenario, pytest.mark.db, pytest.mark.model]

PUBLIC_TOKEN = "public-reader-token-0123456789"  # noqa: S105 (test tokens)
ADMIN_TOKEN = "admin-reader-token-9876543210"  # noqa: S105
TOKENS = f"{PUBLIC_TOKEN}=public,{ADMIN_TOKEN}=user:{ADMIN}+group:finance"
# the restricted salary draft (user:U0ADMIN) holds the budget: 6.5% of the payroll
BUDGET = "2027 年度调薪总预算占工资总额的多少？"
RESTRICTED_DOC = "salary-adjustment-2027.md"


def _call(url: str, *, token: str | None = None, body: dict[str, Any] | None = None,
          method: str = "POST") -> tuple[int, str]:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method)  # noqa: S310 (local http)
    req.add_header("Content-Type", "application/json")
    if token is not None:
        req.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(req, timeout=120) as resp:  # noqa: S310
            return resp.status, resp.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


@pytest.fixture
def api_bot(make_bot: Any) -> Bot:
    bot: Bot = make_bot(settings={"RAGBOT_API_TOKENS": TOKENS})
    return bot


def test_ask_with_a_token_answers_with_citations_and_a_thread(api_bot: Bot) -> None:
    status, text = _call(f"{api_bot.base_url}/api/ask", token=PUBLIC_TOKEN,
                         body={"question": "How do I deploy to production?"})
    assert status == 200, text
    out = json.loads(text)
    assert not out["refused"]
    assert any(c["doc_id"].endswith("deploy-procedure.md") for c in out["citations"])
    assert out["route"]
    assert len(out["trace_id"]) == 32
    assert out["thread_id"]


def test_without_or_with_a_wrong_token_is_401_and_the_token_is_never_logged(
        api_bot: Bot) -> None:
    url = f"{api_bot.base_url}/api/ask"
    body = {"question": "How do I deploy to production?"}
    wrong = PUBLIC_TOKEN[:-1] + "X"
    with structlog.testing.capture_logs() as logs:
        assert _call(url, body=body)[0] == 401
        assert _call(url, token=wrong, body=body)[0] == 401
        assert _call(url, token="", body=body)[0] == 401
        assert _call(url, token=PUBLIC_TOKEN, body={"question": ""})[0] == 400
    assert [e["event"] for e in logs].count("api_unauthorized") == 3
    assert wrong not in repr(logs)
    assert PUBLIC_TOKEN not in repr(logs)


def test_a_token_reads_only_what_its_principals_may(api_bot: Bot) -> None:
    url = f"{api_bot.base_url}/api/ask"
    status, text = _call(url, token=ADMIN_TOKEN, body={"question": BUDGET})
    assert status == 200, text
    admin = json.loads(text)
    assert any(c["doc_id"].endswith(RESTRICTED_DOC) for c in admin["citations"])
    assert "6.5" in admin["answer"]

    status, text = _call(url, token=PUBLIC_TOKEN, body={"question": BUDGET})
    assert status == 200, text
    public = json.loads(text)
    assert not any(c["doc_id"].endswith(RESTRICTED_DOC) for c in public["citations"])
    assert not any(d.endswith(RESTRICTED_DOC) for d in public["retrieved_doc_ids"])
    assert "6.5" not in public["answer"]
    assert "restricted_hidden" not in public


def test_a_thread_id_names_the_tokens_own_conversation(api_bot: Bot) -> None:
    url = f"{api_bot.base_url}/api/ask"
    thread = "same-name"
    assert _call(url, token=ADMIN_TOKEN, body={"question": BUDGET, "thread_id": thread})[0] \
        == 200
    # the same thread name under another token is another conversation: the follow-up
    # cannot borrow the admin's restricted turn
    status, text = _call(url, token=PUBLIC_TOKEN,
                         body={"question": "and how is it split?", "thread_id": thread})
    assert status == 200, text
    assert "6.5" not in json.loads(text)["answer"]
    assert "4.5" not in json.loads(text)["answer"]


def test_stream_sends_stage_events_then_the_answer(api_bot: Bot) -> None:
    from urllib.parse import urlencode

    query = urlencode({"question": "How do I deploy to production?"})
    req = urllib.request.Request(  # noqa: S310 (local http)
        f"{api_bot.base_url}/api/ask/stream?{query}",
        headers={"Authorization": f"Bearer {PUBLIC_TOKEN}"})
    with urllib.request.urlopen(req, timeout=120) as resp:  # noqa: S310
        assert resp.headers["Content-Type"].startswith("text/event-stream")
        raw = resp.read().decode()
    events = [(block.split("\n")[0].removeprefix("event: "),
               json.loads(block.split("\n")[1].removeprefix("data: ")))
              for block in raw.strip().split("\n\n")]
    names = [name for name, _ in events]
    assert names[-1] == "answer"
    assert names.count("stage") >= 2
    assert set(names[:-1]) == {"stage"}
    assert events[0][1]["stage"] == "understanding"
    assert any(c["doc_id"].endswith("deploy-procedure.md") for c in events[-1][1]["citations"])


def test_without_tokens_the_api_does_not_exist(bot: Bot) -> None:
    status, _ = _call(f"{bot.base_url}/api/ask", token=PUBLIC_TOKEN,
                      body={"question": "How do I deploy to production?"})
    assert status == 404


def test_healthz_follows_the_database(bot: Bot) -> None:
    from starlette.testclient import TestClient

    from bot.http.app import HttpDeps, build_http_app
    from bot.http.limits import Limits
    from bot.http.metrics import Metrics, MetricsEndpoint

    assert _call(f"{bot.base_url}/healthz", method="GET") == (200, "ok")
    # a database that does not answer (nothing listens on port 1)
    dead = ConnectionPool("host=127.0.0.1 port=1 dbname=x connect_timeout=1", min_size=0,
                          max_size=1, open=True)
    try:
        metrics = Metrics()
        app = build_http_app(HttpDeps(bolt=bot.service.app, pool=dead, metrics=metrics,
                                      scrape=MetricsEndpoint(metrics), limits=Limits()))
        with TestClient(app) as client:
            resp = client.get("/healthz")
        assert resp.status_code == 503
        assert resp.text == "database unreachable"
    finally:
        dead.close()
