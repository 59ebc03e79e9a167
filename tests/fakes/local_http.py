"""A local HTTP server on a free port, served from a daemon thread: the far side of a wire
that a test fake speaks (the Teams token issuer, the Bot Connector)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Route = Callable[[BaseHTTPRequestHandler], None]


class _Server(ThreadingHTTPServer):
    request_queue_size = 1024  # a burst of requests must not be refused
    daemon_threads = True


def _as_method(route: Route) -> Callable[[BaseHTTPRequestHandler], None]:
    """``route`` as a handler-class method (a bound method set on a class is not re-bound)."""
    def method(handler: BaseHTTPRequestHandler) -> None:
        route(handler)
    return method


class LocalServer:
    """Serves ``routes`` (HTTP method -> handler function) on 127.0.0.1."""

    def __init__(self, routes: Mapping[str, Route], name: str) -> None:
        self._routes = dict(routes)
        self._name = name
        self._server: ThreadingHTTPServer | None = None

    def start(self) -> LocalServer:
        methods = {f"do_{method}": _as_method(route) for method, route in self._routes.items()}

        def log_message(handler: BaseHTTPRequestHandler, format: str, *args: Any) -> None:
            return  # keep test output clean

        handler = type("Handler", (BaseHTTPRequestHandler,),
                       {"protocol_version": "HTTP/1.1", "log_message": log_message, **methods})
        self._server = _Server(("127.0.0.1", 0), handler)
        threading.Thread(target=self._server.serve_forever, daemon=True, name=self._name).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def port(self, who: str) -> int:
        assert self._server is not None, f"{who} is not started"
        return int(self._server.server_address[1])
