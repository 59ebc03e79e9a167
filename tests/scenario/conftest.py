"""Scenario fixtures: the fake Slack Web API, a database holding the sample knowledge base,
and the real bot (Bolt app + HTTP server + maintenance) wired to both.

The sample KB is ingested once per session into a template database; each test gets a
fresh clone of it, so tests are isolated and cheap.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg import sql
from psycopg.conninfo import make_conninfo
from psycopg_pool import ConnectionPool

from tests.databases import cloned_database
from tests.scenario.fake_slack import FakeSlack
from tests.scenario.signed import SlackSender

SECRET = "scenario-signing-secret"  # noqa: S105 (a test secret)
KB = "samples"
SAMPLES = Path(__file__).resolve().parents[2] / "samples" / "kb"
# The sample documents the scenarios need (all 26 take a minute to embed on a small box).
SAMPLE_DOCS = (
    "returns-report-2026-q3.md",  # an English table: "highest return rate"
    "redis-memory-runbook.md",  # a follow-up about persistence
    "deploy-procedure.md",
    "salary-adjustment-2027.md",  # restricted: user:U0ADMIN, channel:C0PRIVATE
    "supplier-onboarding-notes.md",  # <!channel>, <@U0ADMIN> and a link inside the text
    "k8s-pod-crashloop-runbook.md",  # runbooks: options for a vague "the runbook?"
    "mysql-slow-query-runbook.md",
    "leave-policy.md",
    "finance-q3-2026-briefing.md",  # restricted: group:finance
)
SCENARIO_TEMPLATE = "ragbot_scenario_template"

# Conversations the tests use; the sample KB's restricted documents name C0PRIVATE and
# U0ADMIN (salary-adjustment-2027.md).
PUBLIC = "C0PUBLIC"
PRIVATE = "C0PRIVATE"
EXTERNAL = "C0EXT"
DM_ADMIN = "D0ADMIN"
ADMIN = "U0ADMIN"


@pytest.fixture(scope="session")
def scenario_template(pg_admin_url: str, _template: str, embedder: Any) -> str:
    """A migrated database with the sample KB ingested and the checkpointer's tables."""
    from agent.memory import Checkpointer
    from store.db import open_pool
    from store.ingest import ingest_paths

    with psycopg.connect(pg_admin_url, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(
            sql.Identifier(SCENARIO_TEMPLATE)))
        conn.execute(sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(
            sql.Identifier(SCENARIO_TEMPLATE), sql.Identifier(_template)))
    url = make_conninfo(pg_admin_url, dbname=SCENARIO_TEMPLATE)
    pool = open_pool(url, max_size=2)
    try:
        report = ingest_paths(pool, KB, [SAMPLES / name for name in SAMPLE_DOCS],
                              embedder=embedder)
        assert not getattr(report, "failures", None), report
    finally:
        pool.close()
    Checkpointer(url, max_size=1).close()
    return SCENARIO_TEMPLATE


@pytest.fixture
def scenario_db(pg_admin_url: str, scenario_template: str) -> Iterator[str]:
    """A fresh database with the sample KB, for one test."""
    with cloned_database(pg_admin_url, scenario_template, prefix="s") as url:
        yield url


@pytest.fixture
def scenario_pool(scenario_db: str) -> Iterator[ConnectionPool]:
    from store.db import open_pool

    pool = open_pool(scenario_db, max_size=12)
    yield pool
    pool.close()


@pytest.fixture
def fake_slack() -> Iterator[FakeSlack]:
    """The fake Slack Web API with a public, a private, an externally shared channel and
    a DM configured for ``conversations.info``."""
    with FakeSlack() as fake:
        fake.add_channel(PUBLIC, name="general")
        fake.add_channel(PRIVATE, name="leadership", is_private=True)
        fake.add_channel(EXTERNAL, name="partner-acme", is_ext_shared=True)
        fake.add_channel(DM_ADMIN, is_im=True, user=ADMIN)
        yield fake


@dataclass
class Bot:
    """A running bot and what drives it."""

    service: Any
    deps: Any
    fake: FakeSlack
    sender: SlackSender
    agent: Any

    @property
    def base_url(self) -> str:
        """The bot's HTTP server (``/healthz``, ``/metrics``, ``/api/...``)."""
        return self.sender.url.removesuffix("/slack/events")

    def answers(self, channel: str, thread_ts: str) -> list[dict[str, Any]]:
        """The bot's messages in a thread, in their current (updated) state."""
        return [msg for msg in self.fake.messages(channel)
                if msg.get("thread_ts") == thread_ts]

    def wait_done(self, channel: str, message_ts: str, timeout: float = 60.0) -> Any:
        """Block until the turn for (channel, message_ts) is finished; return it."""
        from store import conversations as journal

        def done(_: FakeSlack) -> Any:
            with self.deps.pool.connection() as conn:
                turns = journal.turns_for_message(conn, "slack", channel, message_ts)
            return next((t for t in turns if t.state in ("done", "failed")), None)

        return _poll(done, self.fake, timeout)

    def shown(self, channel: str, turn: Any) -> dict[str, Any] | None:
        """The message showing ``turn``'s outcome: the first the journal records for it
        (the streamed answer, or the status message that became the answer), else the
        status message."""
        from store import conversations as journal

        with self.deps.pool.connection() as conn:
            ids = journal.bot_messages_of_turn(conn, turn.id)
        return self.fake.message(channel, ids[0] if ids else turn.status_id or "")

    def final_text(self, channel: str, thread_ts: str) -> str:
        return "\n".join(block_text(msg) for msg in self.answers(channel, thread_ts))


def _poll(fn: Callable[[FakeSlack], Any], fake: FakeSlack, timeout: float) -> Any:
    # journal state changes are not Slack calls, so re-check at a short timed interval
    import time

    deadline = time.monotonic() + timeout
    while True:
        value = fn(fake)
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"not done in {timeout}s; calls: "
                               f"{[c.method for c in fake.calls()]}")
        time.sleep(0.05)


def block_text(msg: dict[str, Any]) -> str:
    """All visible text of a message's blocks."""
    out: list[str] = []
    for block in msg.get("blocks") or []:
        if isinstance(block.get("text"), dict):
            out.append(str(block["text"].get("text", "")))
        for el in block.get("elements") or []:
            if isinstance(el, dict) and isinstance(el.get("text"), dict | str):
                text = el["text"]
                out.append(str(text.get("text", "") if isinstance(text, dict) else text))
    return "\n".join(out) or str(msg.get("text", ""))


@dataclass
class _Factory:
    fake: FakeSlack
    pool: ConnectionPool
    embedder: Any
    tmp: Path
    started: list[Any] = field(default_factory=list)
    agents: list[Any] = field(default_factory=list)

    def __call__(self, agent: Any = None, *, pacer_interval: float = 0.25,
                 settings: dict[str, Any] | None = None, **overrides: Any) -> Bot:
        from agent.api import build_agent
        from bot.conversations.pacing import ThreadPacer
        from bot.slack.app import create_deps
        from bot.slack.service import SlackService

        settings = self._settings(**(settings or {}))
        own_agent = agent is None
        agent = agent or build_agent(self.pool, self.embedder)
        overrides.setdefault("heartbeat_s", 0.2)
        overrides.setdefault("stale_after_s", 1.0)
        deps = create_deps(settings, pool=self.pool, agent=agent,
                           pacer=ThreadPacer(pacer_interval), **overrides)
        service = SlackService(deps)
        server = service.start_http("127.0.0.1", 0)
        sender = SlackSender(f"http://127.0.0.1:{server.port}/slack/events", SECRET,
                             team_id=self.fake.team_id)
        self.started.append((service, agent if own_agent else None))
        return Bot(service=service, deps=deps, fake=self.fake, sender=sender, agent=agent)

    def processes(self, agent_factory: Any = None, *, workers: int = 1,
                  pacer_interval: float = 0.25, turn_timeout_s: float | None = None,
                  **overrides: Any) -> Bot:
        """A bot as ``ragbot serve`` runs it: agent turns in ``workers`` worker processes,
        each building its own agent with ``agent_factory`` (a picklable callable;
        default: the real agent)."""
        from bot.conversations.pacing import SharedPacer
        from bot.conversations.worker import real_agent
        from bot.slack.app import create_process_deps
        from bot.slack.service import SlackService

        overrides.setdefault("heartbeat_s", 0.2)
        overrides.setdefault("stale_after_s", 1.0)
        settings = self._settings()
        if turn_timeout_s is not None:
            settings = settings.model_copy(update={"turn_timeout_s": turn_timeout_s})
        deps = create_process_deps(settings, pool=self.pool,
                                   database_url=str(self.pool.conninfo), workers=workers,
                                   agent_factory=agent_factory or real_agent,
                                   pacer=SharedPacer(pacer_interval), **overrides)
        service = SlackService(deps)
        server = service.start_http("127.0.0.1", 0)
        sender = SlackSender(f"http://127.0.0.1:{server.port}/slack/events", SECRET,
                             team_id=self.fake.team_id)
        self.started.append((service, None))
        return Bot(service=service, deps=deps, fake=self.fake, sender=sender, agent=None)

    def _settings(self, **extra: Any) -> Any:
        from bot.settings import Settings

        return Settings(**{
            "RAGBOT_HOME": str(self.tmp),
            "SLACK_BOT_TOKEN": "xoxb-scenario",
            "SLACK_SIGNING_SECRET": SECRET, "SLACK_API_URL": self.fake.url,
            "SLACK_APP_TOKEN": None, "RAGBOT_KB": KB, **extra})

    def real_agent(self) -> Any:
        """A real agent on the scenario database (closed at teardown)."""
        from agent.api import build_agent

        agent = build_agent(self.pool, self.embedder)
        self.agents.append(agent)
        return agent

    def close(self) -> None:
        for agent in self.agents:
            agent.close()
        for service, agent in reversed(self.started):
            service.stop()
            if agent is not None:
                agent.close()


@pytest.fixture
def make_bot(fake_slack: FakeSlack, scenario_pool: ConnectionPool, embedder: Any,
             tmp_path: Path) -> Iterator[_Factory]:
    """Start bots (several make replicas or restarts) on one database and fake Slack."""
    factory = _Factory(fake_slack, scenario_pool, embedder, tmp_path)
    yield factory
    factory.close()


@pytest.fixture
def bot(make_bot: _Factory) -> Bot:
    """The bot with the real agent over the sample KB."""
    return make_bot()
