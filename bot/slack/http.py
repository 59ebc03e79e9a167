"""HTTP mode: Slack's requests (events, interactivity, commands) at ``/slack/events``.

A threading server, so a slow request never delays another's ack; Bolt verifies the
signature and timestamp of each request (401 when bad or older than 5 minutes).
"""

from __future__ import annotations

import _thread
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from slack_bolt import App, BoltRequest

EVENTS_PATH = "/slack/events"


class _Server(ThreadingHTTPServer):
    # socketserver's default backlog of 5 drops or delays (SYN retry: 1 s) connections
    # in a burst of events; Slack sends bursts.
    request_queue_size = 1024
    daemon_threads = True

    def process_request(self, request: Any, client_address: Any) -> None:
        # One thread per connection, started without ``Thread.start()``'s handshake: that
        # waits until the new thread has run, i.e. got the interpreter lock, so in a burst
        # the accept loop paid a lock hand-over per connection before accepting the next
        # (50 events at once: the last was accepted 100-200 ms late). Threads started here
        # are daemonic, as ``daemon_threads`` made them before.
        _thread.start_new_thread(self.process_request_thread, (request, client_address))


class SlackHTTPServer:
    """Serves ``app`` on ``host:port`` (port 0 picks a free one; see ``.port``)."""

    def __init__(self, app: App, host: str = "0.0.0.0", port: int = 3000,  # noqa: S104
                 path: str = EVENTS_PATH) -> None:
        bolt, events_path = app, path

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                # a health check for load balancers and compose
                status, body = (200, b"ok") if self.path == "/healthz" else (404, b"")
                self._reply(status, {"Content-Type": "text/plain"}, body)

            def do_POST(self) -> None:
                parts = urlsplit(self.path)
                if parts.path != events_path:
                    self._reply(404, {}, b"")
                    return
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length).decode("utf-8") if length else ""
                headers: dict[str, Any] = {k.lower(): [v] for k, v in self.headers.items()}
                resp = bolt.dispatch(BoltRequest(body=body, query=parts.query,
                                                 headers=headers))
                out_headers = {k: v[0] for k, v in resp.headers.items() if v}
                self._reply(resp.status, out_headers, resp.body.encode("utf-8"))

            def _reply(self, status: int, headers: dict[str, str], body: bytes) -> None:
                self.send_response(status)
                for key, value in headers.items():
                    if key.lower() != "content-length":
                        self.send_header(key, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                return  # Bolt and the listeners log what matters

        self._server = _Server((host, port), Handler)
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    def serve_forever(self) -> None:
        self._server.serve_forever()

    def start(self) -> SlackHTTPServer:
        """Serve in a background thread (tests, benchmarks)."""
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True,
                                        name="slack-http")
        self._thread.start()
        return self

    def shutdown(self) -> None:
        self._server.shutdown()
        self._server.server_close()
