"""The embedded PostgreSQL: started on first use, reused, safe to start twice at once,
stopped and started again. Each test gets its own RAGBOT_HOME and server."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from store.server import embedded_data_dir, resolve_database_url, start_embedded, stop_embedded

# Run in a child process: start (or reuse) the server and report which one answered.
_CHILD = """
import json, sys
from pathlib import Path
import psycopg
from store.server import start_embedded
url = start_embedded(Path(sys.argv[1]))
with psycopg.connect(url) as conn:
    started = conn.execute("SELECT pg_postmaster_start_time()::text").fetchone()[0]
print(json.dumps({"url": url, "started": started}))
"""


def _postmaster_pid(home: Path) -> int:
    return int((embedded_data_dir(home) / "postmaster.pid").read_text().splitlines()[0])


def _start_time(url: str) -> str:
    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT pg_postmaster_start_time()::text").fetchone()
    assert row is not None
    return str(row[0])


def _spawn(home: Path) -> subprocess.Popen[str]:
    # the test interpreter itself, running a fixed script: no untrusted input
    return subprocess.Popen([sys.executable, "-c", _CHILD, str(home)],  # noqa: S603
                            stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _result(proc: subprocess.Popen[str]) -> dict[str, str]:
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    return dict(json.loads(out.strip().splitlines()[-1]))


@pytest.fixture
def home() -> Iterator[Path]:
    """A RAGBOT_HOME whose server, if any test starts one, is stopped afterwards.

    Not under pytest's basetemp: the server runs as another user when the tests run as
    root, and a concurrent pytest run narrows the shared basetemp's permissions to 0700,
    after which pg_ctl can no longer reach the data directory to stop it."""
    root = Path(tempfile.mkdtemp(prefix="ragbot-test-home-"))
    path = root / "home"
    yield path
    stop_embedded(path)
    shutil.rmtree(root, ignore_errors=True)


def test_first_use_starts_the_server_and_later_calls_reuse_it(home: Path) -> None:
    assert not embedded_data_dir(home).exists()
    url = start_embedded(home)
    pid = _postmaster_pid(home)
    started = _start_time(url)

    t0 = time.perf_counter()
    again = start_embedded(home)
    assert time.perf_counter() - t0 < 1.0
    assert again == url

    child = _result(_spawn(home))  # another command reuses the running server
    assert child == {"url": url, "started": started}
    assert _postmaster_pid(home) == pid


def test_two_processes_starting_at_once_get_one_working_server(home: Path) -> None:
    procs = [_spawn(home), _spawn(home)]
    first, second = (_result(p) for p in procs)
    assert first == second
    assert _start_time(first["url"]) == first["started"]


def test_stop_then_start_again_gives_a_working_server(home: Path) -> None:
    url = start_embedded(home)
    before = _start_time(url)

    assert stop_embedded(home) is True
    with pytest.raises(psycopg.OperationalError):
        psycopg.connect(url, connect_timeout=2).close()
    assert stop_embedded(home) is False

    # the same process (whose handle of the old server is stale) starts it again
    url = start_embedded(home)
    after = _start_time(url)
    assert after != before

    assert stop_embedded(home) is True
    child = _result(_spawn(home))  # and so does a later command
    assert child["started"] != after
    assert _start_time(child["url"]) == child["started"]


def test_database_url_overrides_the_embedded_server(home: Path) -> None:
    url = "postgresql://someone@db.example:5432/ragbot"
    assert resolve_database_url(url, home) == url
    assert not embedded_data_dir(home).exists()
