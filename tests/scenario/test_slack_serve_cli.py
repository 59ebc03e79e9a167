"""`ragbot serve --http`: the command line wires the real bot (one end-to-end run), its
questions answered by a worker process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.scenario.conftest import KB, PUBLIC, SECRET, block_text
from tests.scenario.fake_slack import FakeSlack
from tests.scenario.signed import SlackSender

pytestmark = [pytest.mark.scenario, pytest.mark.db, pytest.mark.model]


@pytest.fixture
def served(scenario_db: str, fake_slack: FakeSlack, tmp_path: Path) -> Iterator[SlackSender]:
    env = {**os.environ, "DATABASE_URL": scenario_db, "RAGBOT_HOME": str(tmp_path),
           "SLACK_BOT_TOKEN": "xoxb-cli", "SLACK_SIGNING_SECRET": SECRET,
           "SLACK_API_URL": fake_slack.url, "RAGBOT_LOG_FORMAT": "json",
           "RAGBOT_CHANNEL_KBS": f"C0OTHER=elsewhere,{PUBLIC}={KB}", "HF_HUB_OFFLINE": "1"}
    env.pop("SLACK_APP_TOKEN", None)
    proc = subprocess.Popen(  # noqa: S603 - our own CLI
        [str(Path(sys.executable).with_name("ragbot")), "serve", "--http", "--host", "127.0.0.1",
         "--port", "0", "--kb", "no-such-kb", "--workers", "1"],
        env=env, stderr=subprocess.PIPE, text=True, cwd=Path(__file__).resolve().parents[2])
    port = None
    deadline = time.monotonic() + 120
    assert proc.stderr is not None
    while port is None and time.monotonic() < deadline:
        line = proc.stderr.readline()
        if not line:
            break
        if "slack_http_listening" in line:
            port = json.loads(line)["port"]
    try:
        assert port, "ragbot serve did not start listening"
        yield SlackSender(f"http://127.0.0.1:{port}/slack/events", SECRET,
                          team_id=fake_slack.team_id)
    finally:
        proc.terminate()
        proc.wait(30)


def test_serve_answers_a_mention_from_the_channels_mapped_kb(served: SlackSender,
                                                               fake_slack: FakeSlack) -> None:
    event = served.mention(PUBLIC, "<@UBOT> Which product line had the highest return rate "
                                   "in Q3 2026?")
    assert served.event(event).status == 200
    # --kb names a KB that does not exist: the answer proves the channel mapping won
    answered = fake_slack.wait_for(lambda f: [
        m for m in f.messages(PUBLIC) if "Drift" in block_text(m)], timeout=60)
    assert answered[0]["thread_ts"] == event["ts"]
    assert fake_slack.calls("auth.test")  # the token was checked at start


def test_serve_runs_reindex_jobs_in_its_job_process(served: SlackSender, scenario_db: str,
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
