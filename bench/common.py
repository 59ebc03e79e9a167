"""What every benchmark shares: its own database, result files, tables and percentiles.

Benchmarks never touch the test databases or a user's KBs: each run gets a fresh database
``ragbot_bench_<name>`` on the server of ``--database-url`` (a superuser URL) or, by default,
on an embedded server under ``$RAGBOT_BENCH_HOME`` (default ``/tmp/ragbot-bench``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import psycopg
from pgvector.psycopg import register_vector
from psycopg import sql
from psycopg.conninfo import make_conninfo
from psycopg_pool import ConnectionPool

from store.db import open_pool

RESULTS_DIR = Path(__file__).resolve().parent / "results"
DEFAULT_HOME = Path(os.environ.get("RAGBOT_BENCH_HOME", "/tmp/ragbot-bench"))  # noqa: S108 - a scratch server, never shared state


def add_database_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--database-url", default=None,
                        help="superuser URL of a PostgreSQL server with pgvector (default: an "
                        "embedded server under $RAGBOT_BENCH_HOME or /tmp/ragbot-bench)")


def admin_url(database_url: str | None) -> str:
    """A superuser URL on the benchmark server (starting the embedded one if needed)."""
    if database_url:
        return database_url
    from store.server import start_embedded  # only when no URL is given

    return make_conninfo(start_embedded(DEFAULT_HOME), dbname="postgres")


def fresh_database(admin: str, name: str) -> str:
    """Drop and re-create database ``ragbot_bench_<name>``; return its URL."""
    dbname = f"ragbot_bench_{name}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(
            sql.Identifier(dbname)))
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(dbname)))
    return make_conninfo(admin, dbname=dbname)


def drop_database(admin: str, url: str) -> None:
    dbname = psycopg.conninfo.conninfo_to_dict(url)["dbname"]
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(
            sql.Identifier(str(dbname))))


def bench_pool(url: str, *, auto_prepare: bool = False, max_size: int = 2) -> ConnectionPool:
    """A pool like ``store.db.open_pool``'s (migrated, pgvector registered, autocommit).

    Without ``auto_prepare`` psycopg never prepares statements server-side. With it (the
    psycopg default, and what open_pool does today), a statement run 5 times on a connection
    is prepared, and after 5 more executions PostgreSQL may switch to a generic plan, which
    for the hybrid search statement is about 30x slower (seconds at 10k chunks).
    """
    if auto_prepare:
        return open_pool(url, max_size=max_size)
    open_pool(url, max_size=1).close()  # applies the migrations
    pool = ConnectionPool(url, min_size=1, max_size=max_size,
                          kwargs={"autocommit": True, "prepare_threshold": None},
                          configure=register_vector, open=True)
    pool.wait()
    return pool


def percentile(values: Sequence[float], q: float) -> float:
    return float(np.percentile(np.asarray(values, dtype=np.float64), q)) if values else 0.0


def peak_rss_mb() -> float:
    """This process's peak resident set size (ru_maxrss is KiB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def machine() -> dict[str, Any]:
    return {
        "commit": _commit(),
        "cpus": os.cpu_count(),
        "loadavg": [round(x, 2) for x in os.getloadavg()],
        "python": platform.python_version(),
        "platform": platform.platform(),
    }


def _commit() -> str:
    """The checked-out commit (with "+dirty" when files differ), so figures name their code."""
    root = Path(__file__).resolve().parent.parent
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root,  # noqa: S607
                              capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],  # noqa: S607
                               cwd=root, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+dirty" if dirty.strip() else "")


def print_table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    cells = [[_fmt(c) for c in row] for row in rows]
    widths = [max(len(h), *(len(r[i]) for r in cells)) for i, h in enumerate(headers)]
    print("  ".join(h.rjust(w) for h, w in zip(headers, widths, strict=True)))
    for row in cells:
        print("  ".join(c.rjust(w) for c, w in zip(row, widths, strict=True)))


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.3g}" if abs(value) < 10 else f"{value:.1f}"
    return str(value)


def write_results(name: str, data: dict[str, Any]) -> Path:
    """Write ``data`` (plus the command line and the machine) to bench/results/NAME.json."""
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    path = RESULTS_DIR / f"{name}.json"
    payload = {"command": " ".join(["python", "-m", f"bench.{name}", *sys.argv[1:]]),
               "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
               "machine": machine(), **data}
    path.write_text(json.dumps(payload, indent=2, ensure_ascii=False) + "\n")
    return path
