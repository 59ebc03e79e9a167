"""Shared fixtures: a real PostgreSQL (embedded unless DATABASE_URL is set), a fresh
database per test cloned from a migrated template, and the real default embedder."""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
import structlog
from psycopg import sql
from psycopg.conninfo import make_conninfo
from psycopg_pool import ConnectionPool

from tests.databases import cloned_database

os.environ.setdefault("HF_HUB_OFFLINE", "1")

TEMPLATE = "ragbot_test_template"

# Fixtures for the far side of wires we do not own (fake OpenAI-compatible server).
pytest_plugins = ["tests.fakes.openai_fixture", "tests.fakes.teams_fixture"]


@pytest.fixture(scope="session")
def pg_admin_url() -> Iterator[str]:
    """A superuser URL of a server with pgvector."""
    external = os.environ.get("DATABASE_URL")
    if external:
        yield external
        return
    from store.server import start_embedded, stop_embedded

    # Not under pytest's basetemp: pytest prunes old basetemps, which would delete the data
    # of a server that a concurrent pytest run is still using.
    home = Path(tempfile.mkdtemp(prefix="ragbot-test-pg-"))
    url = start_embedded(home)
    yield url
    stop_embedded(home)
    shutil.rmtree(home, ignore_errors=True)


@pytest.fixture(scope="session")
def _template(pg_admin_url: str) -> str:
    from store import migrations
    from store.db import ensure_vector_index

    with psycopg.connect(pg_admin_url, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(
            sql.Identifier(TEMPLATE)))
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(TEMPLATE)))
    with psycopg.connect(make_conninfo(pg_admin_url, dbname=TEMPLATE), autocommit=True) as conn:
        migrations.setup(conn)
        ensure_vector_index(conn, 384)
    return TEMPLATE


@pytest.fixture
def db_url(pg_admin_url: str, _template: str) -> Iterator[str]:
    """A fresh, migrated database for one test."""
    with cloned_database(pg_admin_url, _template) as url:
        yield url


@pytest.fixture
def pool(db_url: str) -> Iterator[ConnectionPool]:
    from store.db import open_pool

    p = open_pool(db_url, max_size=4)
    yield p
    p.close()


@pytest.fixture(scope="session")
def embedder():  # type: ignore[no-untyped-def]
    """The real default embedder (all-MiniLM-L6-v2 from packaged weights), loaded once."""
    from store.embedding import load_embedder

    return load_embedder()


@pytest.fixture(scope="session")
def onnx_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A RAGBOT_HOME whose models folder holds the default model's ONNX export (made once,
    by the first ``int8`` user)."""
    return tmp_path_factory.mktemp("onnx-home")


@pytest.fixture(scope="session")
def int8(onnx_home: Path):  # type: ignore[no-untyped-def]
    """The default model on the onnx-int8 backend (exported into ``onnx_home``)."""
    from store.embedding import load_embedder

    return load_embedder(backend="onnx-int8", home=onnx_home)


@pytest.fixture
def ragbot_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("RAGBOT_HOME", str(tmp_path))
    return tmp_path


@pytest.fixture(autouse=True)
def _logging_restored() -> Iterator[None]:
    """A test that runs ``main()`` configures logging for the whole process, with loggers
    cached on first use: a module's logger first used after it would keep that
    configuration for good, out of reach of a later test's ``capture_logs``. Put it back."""
    root = logging.getLogger()
    handlers, level, config = root.handlers[:], root.level, structlog.get_config()
    yield
    root.handlers[:] = handlers
    root.setLevel(level)
    structlog.configure(**config)
