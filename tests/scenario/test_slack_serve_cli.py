"""`ragbot serve --http`: the command line wires the real bot (one end-to-end run), its
questions answered by a worker process, counted in /metrics across processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.scenario.conftest import KB, PUBLIC, SECRET, block_text
from tests.scenario.fake_slack import FakeSlack
from tests.scenario.signed import SlackSender

pytestmark = [pytest.mark.scenario, pytest.mark.db, pytest.mark.model]

API_TOKEN = "cli-api-token-abcdefghijkl"  # noqa: S105 (a test token)


@dataclass
class Served:
    sender: SlackSender
    log: list[str]  # the server's log lines so far (JSON)

    @property
    def base(self) -> str:
        return self.sender.url.removesuffix("/slack/events")


@pytest.fixture
def served(scenario_db: str, fake_slack: FakeSlack, tmp_path: Path) -> Iterator[Served]:
    env = {**os.environ, "DATABASE_URL": scenario_db, "RAGBOT_HOME": str(tmp_path),
           "SLACK_BOT_TOKEN": "xoxb-cli", "SLACK_SIGNING_SECRET": SECRET,
           "SLACK_API_URL": fake_slack.url, "RAGBOT_LOG_FORMAT": "json",
           "RAGBOT_CHANNEL_KBS": f"C0OTHER=elsewhere,{PUBLIC}={KB}", "HF_HUB_OFFLINE": "1",
           "RAGBOT_API_TOKENS": f"{API_TOKEN}=public"}
    env.pop("SLACK_APP_TOKEN", None)
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    proc = subprocess.Popen(  # noqa: S603 - our own CLI
        [str(Path(sys.executable).with_name("ragbot")), "serve", "--http", "--host", "127.0.0.1",
         "--port", "0", "--kb", "no-such-kb", "--workers", "1"],
        env=env, stderr=subprocess.PIPE, text=True, cwd=Path(__file__).resolve().parents[2])
    port = None
    deadline = time.monotonic() + 120
    assert proc.stderr is not None
    log: list[str] = []
    while port is None and time.monotonic() < deadline:
        line = proc.stderr.readline()
        if not line:
            break
        log.append(line)
        if "slack_http_listening" in line:
            port = json.loads(line)["port"]
    # keep reading: a full pipe would block the server on its next log line
    drain = threading.Thread(target=lambda: log.extend(proc.stderr or ()), daemon=True)
    drain.start()
    try:
        assert port, "ragbot serve did not start listening"
        yield Served(SlackSender(f"http://127.0.0.1:{port}/slack/events", SECRET,
                                 team_id=fake_slack.team_id), log)
    finally:
        proc.terminate()
        proc.wait(30)


def test_serve_answers_a_mention_from_the_channels_mapped_kb(served: Served,
                                                               fake_slack: FakeSlack) -> None:
    event = served.sender.mention(PUBLIC, "<@UBOT> Which product line had the highest return rate "
                                   "in Q3 2026?")
    assert served.sender.event(event).status == 200
    # --kb names a KB that does not exist: the answer proves the channel mapping won
    answered = fake_slack.wait_for(lambda f: [
        m for m in f.messages(PUBLIC) if "Drift" in block_text(m)], timeout=60)
    assert answered[0]["thread_ts"] == event["ts"]
    assert fake_slack.calls("auth.test")  # the token was checked at start


def test_serve_runs_reindex_jobs_in_its_job_process(served: Served, scenario_db: str,
                                                    fake_slack: FakeSlack) -> None:
    from bot.jobs import JobQueue
    from store.db import open_pool

    pool = open_pool(scenario_db, max_size=2)
    try:
        JobQueue(pool).defer_reindex(kb="no-such-kb", channel=PUBLIC, user="U0ADMIN")
    finally:
        pool.close()
    # the job process picked the job up, ran it, and told the admin through Slack
    told = fake_slack.wait_for(lambda f: [
        c for c in f.calls() if "`no-such-kb` failed" in json.dumps(c.body)], timeout=120)
    assert told


def test_serve_with_slack_unreachable_exits_2_with_one_readable_line(
        scenario_db: str, tmp_path: Path) -> None:
    import socket

    with socket.socket() as s:  # a local port nobody listens on
        s.bind(("127.0.0.1", 0))
        closed = s.getsockname()[1]
    api = f"http://127.0.0.1:{closed}/api/"
    env = {**os.environ, "DATABASE_URL": scenario_db, "RAGBOT_HOME": str(tmp_path),
           "SLACK_BOT_TOKEN": "xoxb-cli", "SLACK_SIGNING_SECRET": SECRET,
           "SLACK_API_URL": api, "RAGBOT_LOG_LEVEL": "CRITICAL", "HF_HUB_OFFLINE": "1"}
    env.pop("SLACK_APP_TOKEN", None)
    done = subprocess.run(  # noqa: S603 - our own CLI
        [str(Path(sys.executable).with_name("ragbot")), "serve", "--http", "--port", "0",
         "--workers", "1"], env=env, capture_output=True, text=True, timeout=120,
        cwd=Path(__file__).resolve().parents[2], check=False)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"error: cannot reach the Slack Web API at {api} (URLError: [Errno 111] Connection "
        "refused); check this machine's network access to Slack, any HTTPS proxy "
        "(HTTPS_PROXY), and SLACK_API_URL"]


def _get(url: str, *, data: bytes | None = None, token: str | None = None) -> tuple[int, str]:
    req = urllib.request.Request(url, data=data)  # noqa: S310 (local http)
    if token:
        req.add_header("Authorization", f"Bearer {token}")
        req.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(req, timeout=120) as resp:  # noqa: S310
        return resp.status, resp.read().decode()


def _figures(base: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of ``/metrics``, by name and labels."""
    _, text = _get(f"{base}/metrics")
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def _wait_figure(base: str, name: str, labels: dict[str, str], value: float) -> None:
    key = (name, tuple(sorted(labels.items())))
    deadline = time.monotonic() + 30
    while _figures(base).get(key) != value:
        assert time.monotonic() < deadline, (key, _figures(base).get(key))
        time.sleep(0.2)


def test_serve_counts_in_metrics_what_its_worker_process_answered(served: Served,
                                                                   fake_slack: FakeSlack) -> None:
    base = served.base
    assert _get(f"{base}/healthz") == (200, "ok")
    before = _figures(base)
    assert before[("ragbot_workers_alive", ())] == 1
    assert ("ragbot_answers_total", (("surface", "slack"),)) not in before

    event = served.sender.mention(PUBLIC, "<@UBOT> How do I deploy to production?")
    assert served.sender.event(event).status == 200
    fake_slack.wait_for(lambda f: [m for m in f.messages(PUBLIC)
                                   if "Production Deploy Procedure" in block_text(m)], timeout=90)
    slack = {"surface": "slack"}
    # the answer was counted in the worker process, the ack in the serving one
    _wait_figure(base, "ragbot_answers_total", slack, 1)
    figures = _figures(base)
    assert figures[("ragbot_answer_seconds_count", (("surface", "slack"),))] == 1
    assert figures[("ragbot_questions_total", (("surface", "slack"),))] == 1
    assert figures[("ragbot_acks_total", (("surface", "slack"),))] >= 1
    assert figures[("ragbot_queue_depth", ())] == 0

    # the query API answers in the serving process, with the same counters
    question = {"question": "How do I deploy to production?", "kb": KB}
    status, text = _get(f"{base}/api/ask", token=API_TOKEN, data=json.dumps(question).encode())
    assert status == 200
    assert json.loads(text)["citations"]
    _wait_figure(base, "ragbot_answers_total", {"surface": "api"}, 1)
    assert _figures(base)[("ragbot_http_requests_total",
                           (("status", "200"), ("surface", "api")))] == 1
    assert API_TOKEN not in "".join(served.log)
