"""pytest plugin: the ``fake_openai`` fixture (enable with
``pytest_plugins = ["tests.fakes.openai_fixture"]`` in tests/conftest.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fakes.openai_server import FakeOpenAI, serve


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAI]:
    """A local OpenAI-compatible server: ``.base_url``, ``.requests``, ``.script(...)``."""
    yield from serve()
