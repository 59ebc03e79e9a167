"""uvicorn serving the ASGI app, in the foreground (``ragbot serve``) or on a background
thread (tests, the benchmark).

The listening socket is bound here, before uvicorn starts, so port 0 (a free port) is known
at once and a port already taken fails in the caller.
"""

from __future__ import annotations

import socket
import threading
import time
from dataclasses import dataclass

import uvicorn

from bot.http.limits import ASGIApp


@dataclass(frozen=True)
class ServerLimits:
    max_connections: int = 200  # beyond this uvicorn answers 503 at once
    keepalive_s: int = 75  # an idle kept-alive connection is closed after this


class HttpServer:
    """Serves ``app`` on ``host:port`` (port 0 picks a free one; see ``.port``)."""

    def __init__(self, app: ASGIApp, host: str = "0.0.0.0", port: int = 3000,  # noqa: S104
                 limits: ServerLimits | None = None) -> None:
        limits = limits or ServerLimits()
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self._socket = socket.socket(family, socket.SOCK_STREAM)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._socket.bind((host, port))
        # Slack sends bursts: a short backlog would drop or delay (SYN retry: 1 s) some
        self._socket.listen(2048)
        self._server = uvicorn.Server(uvicorn.Config(
            app, limit_concurrency=limits.max_connections,
            timeout_keep_alive=limits.keepalive_s,
            # in-flight requests (an answer stream) get this long at shutdown
            timeout_graceful_shutdown=5, lifespan="off", access_log=False, log_config=None,
            server_header=False))
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return int(self._socket.getsockname()[1])

    def serve_forever(self) -> None:
        """Serve until SIGINT or SIGTERM (uvicorn then re-raises the signal)."""
        self._server.run(sockets=[self._socket])

    def start(self) -> HttpServer:
        """Serve on a background thread; returns once uvicorn accepts connections."""
        self._thread = threading.Thread(target=self._server.run,
                                        kwargs={"sockets": [self._socket]}, daemon=True,
                                        name="http-server")
        self._thread.start()
        while not self._server.started:
            if not self._thread.is_alive():
                raise RuntimeError("the HTTP server stopped while starting (see the log)")
            time.sleep(0.01)
        return self

    def shutdown(self) -> None:
        self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(10)
        self._socket.close()
