"""pytest plugin: ``fake_issuer`` and ``fake_connector``, the local Bot Framework token
issuer and Bot Connector (enabled in tests/conftest.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fakes.teams_connector import FakeConnector
from tests.fakes.teams_issuer import FakeIssuer, serve_issuer


@pytest.fixture
def fake_issuer() -> Iterator[FakeIssuer]:
    yield from serve_issuer()


@pytest.fixture
def fake_connector(fake_issuer: FakeIssuer) -> Iterator[FakeConnector]:
    connector = FakeConnector(fake_issuer).start()
    try:
        yield connector
    finally:
        connector.stop()
