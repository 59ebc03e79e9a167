"""A running Slack bot: the app, its maintenance (heartbeat, crash recovery) and its
transport (HTTP server or Socket Mode). Used by ``ragbot serve``, the scenario tests and
the benchmark, so all three run the same machinery."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import structlog

from bot.conversations.recovery import Maintenance
from bot.slack.app import build_app

if TYPE_CHECKING:
    from slack_bolt import App

    from bot.http.server import HttpServer
    from bot.slack.deps import AgentPort, SlackDeps

log = structlog.get_logger("ragbot.slack")


class SlackService:
    def __init__(self, deps: SlackDeps, *, app: App | None = None,
                 token_verification: bool = True,
                 api_agent: Callable[[], AgentPort] | None = None,
                 metrics_dir: Path | None = None, teams: Any = None) -> None:
        """``api_agent`` builds the agent the query API answers with (default: the deps'
        agent); ``metrics_dir`` is the multiprocess metrics directory, when turns run in
        worker processes (``bot.http.metrics``)."""
        self.deps = deps
        self.app = app or build_app(deps, token_verification=token_verification)
        self.maintenance = Maintenance(deps)
        self.api_agent = api_agent
        self.metrics_dir = metrics_dir
        self.teams = teams  # Teams' /api/messages endpoint on the same app, when set
        self.http: HttpServer | None = None
        self._socket: Any = None
        self._stopped = threading.Event()

    def start_http(self, host: str = "0.0.0.0", port: int = 3000,  # noqa: S104
                   *, background: bool = True) -> HttpServer:
        """Serve the HTTP app (``bot.http.app``: Slack's events, health, metrics, the
        query API); with ``background=False`` block until interrupted."""
        from bot.http.app import http_server

        self.http = http_server(self.deps, self.app, host=host, port=port,
                                api_agent=self.api_agent, metrics_dir=self.metrics_dir,
                                teams=self.teams)
        self._start_work()
        log.info("slack_http_listening", host=host, port=self.http.port,
                 instance=self.deps.instance_id, api=bool(self.deps.settings.api_tokens))
        if background:
            return self.http.start()
        self.http.serve_forever()
        return self.http

    def start_socket_mode(self) -> None:
        """Connect over Socket Mode (SLACK_APP_TOKEN) and block until ``stop()`` or an
        interrupt."""
        from slack_bolt.adapter.socket_mode import SocketModeHandler

        self._start_work()
        app_token = self.deps.settings.slack_app_token
        if app_token is None:
            raise RuntimeError("Socket Mode needs SLACK_APP_TOKEN (xapp-…); set it or use --http")
        self._socket = SocketModeHandler(self.app, app_token.get_secret_value())
        log.info("slack_socket_mode_connecting", instance=self.deps.instance_id)
        self._socket.connect()
        # not SocketModeHandler.start(): it waits on an Event of its own that nothing sets,
        # so stop() from another thread would close the socket but never return this call
        self._stopped.wait()

    def _start_work(self) -> None:
        """Turn workers first (so a taken-over orphan has somewhere to run), then the
        heartbeat and sweep. Worker processes are waited for: a worker that cannot start
        (database, model) stops the bot here rather than failing every question."""
        work = self.deps.work
        if work is not None:
            work.start(self.maintenance.runner, self.maintenance.recover_lost)
            wait_ready = getattr(work, "wait_ready", None)
            if wait_ready is not None:
                log.info("turn_workers_ready", pids=wait_ready())
        self.maintenance.start()

    def stop(self) -> None:
        self._stopped.set()
        if self.http is not None:
            self.http.shutdown()
        if self._socket is not None:
            self._socket.close()
        # finish the turns in hand, drop the queued ones, then retire: what is left
        # unfinished becomes an orphan that another replica (or the next start) takes over
        if self.deps.work is not None:
            self.deps.work.shutdown()
        self.maintenance.stop()
