"""The HTTP server holds no one's resources before authentication: oversized bodies get 413
unread, slow or stalled bodies are cut off at the read deadline without holding up other
requests, and an empty signing secret is refused outright."""

from __future__ import annotations

import http.client
import socket
import threading
import time
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.scenario.conftest import PUBLIC, Bot

pytestmark = [pytest.mark.scenario, pytest.mark.db, pytest.mark.model]

DEADLINE_S = 3.0
LIMITS = {"RAGBOT_HTTP_MAX_BODY_BYTES": 64 * 1024, "RAGBOT_HTTP_READ_TIMEOUT_S": DEADLINE_S}


@pytest.fixture
def limited(make_bot: Any) -> Bot:
    bot: Bot = make_bot(settings=LIMITS)
    return bot


def _address(bot: Bot) -> tuple[str, int]:
    parts = urlsplit(bot.base_url)
    assert parts.hostname is not None
    assert parts.port is not None
    return parts.hostname, parts.port


def _status_line(sock: socket.socket) -> str:
    data = b""
    while b"\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk:
            break
        data += chunk
    return data.split(b"\r\n", 1)[0].decode()


def test_declared_oversized_body_gets_413_without_being_sent(limited: Bot) -> None:
    conn = http.client.HTTPConnection(*_address(limited), timeout=5)
    # the headers alone: a server that waited for the body would never answer
    conn.putrequest("POST", "/slack/events")
    conn.putheader("Content-Type", "application/json")
    conn.putheader("Content-Length", str(64 * 1024 + 1))
    conn.endheaders()
    resp = conn.getresponse()
    assert resp.status == 413
    assert resp.getheader("connection") == "close"
    conn.close()


def test_chunked_body_past_the_limit_gets_413(limited: Bot) -> None:
    with socket.create_connection(_address(limited), timeout=5) as sock:
        sock.sendall(b"POST /slack/events HTTP/1.1\r\nHost: bot\r\n"
                     b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
        chunk = b"x" * 8192
        sent = 0
        try:
            while sent <= 80 * 1024:  # past the 64 KB limit, with no length declared
                sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                sent += len(chunk)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server stopped reading: what it said is still in our buffer
        assert _status_line(sock) == "HTTP/1.1 413 Request Entity Too Large"


def test_body_within_the_limit_still_reaches_bolt(limited: Bot) -> None:
    event = limited.sender.mention(PUBLIC, "<@UBOT> " + "how do I deploy? " * 100)
    assert limited.sender.event(event).status == 200
    assert limited.wait_done(PUBLIC, event["ts"]).state == "done"


def test_half_sent_body_is_cut_off_at_the_deadline_and_others_are_served(limited: Bot) -> None:
    statuses: list[tuple[str, float]] = []

    def stall() -> None:
        with socket.create_connection(_address(limited), timeout=10) as sock:
            started = time.monotonic()
            sock.sendall(b"POST /slack/events HTTP/1.1\r\nHost: bot\r\n"
                         b"Content-Type: application/json\r\nContent-Length: 400\r\n\r\n"
                         + b"{" * 200)  # half the body, then nothing
            statuses.append((_status_line(sock), time.monotonic() - started))

    stalled = [threading.Thread(target=stall) for _ in range(3)]
    for thread in stalled:
        thread.start()
    time.sleep(0.2)
    # meanwhile the server answers everyone else at once
    conn = http.client.HTTPConnection(*_address(limited), timeout=5)
    started = time.monotonic()
    conn.request("GET", "/healthz")
    assert conn.getresponse().status == 200
    event = limited.sender.mention(PUBLIC, "<@UBOT> how do I deploy to production?")
    delivery = limited.sender.event(event)
    assert delivery.status == 200
    # both answered long before the stalled requests' deadline
    assert time.monotonic() - started < DEADLINE_S / 2
    for thread in stalled:
        thread.join(10)
    assert [s for s, _ in statuses] == ["HTTP/1.1 408 Request Timeout"] * 3
    assert all(DEADLINE_S - 0.1 < elapsed < DEADLINE_S + 1.5 for _, elapsed in statuses), \
        statuses


def test_empty_signing_secret_is_refused_when_building_the_app(make_bot: Any) -> None:
    for secret in ("", "   "):
        with pytest.raises(ValueError, match="SLACK_SIGNING_SECRET is empty"):
            make_bot(settings={"SLACK_SIGNING_SECRET": secret})
