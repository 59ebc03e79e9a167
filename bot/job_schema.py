"""procrastinate's tables in the bot's database: created on first start, migrated with
procrastinate's own migration scripts when procrastinate is upgraded."""

from __future__ import annotations

from importlib.metadata import version
from pathlib import Path

import psycopg
import structlog
from procrastinate.schema import SchemaManager

log = structlog.get_logger("ragbot.jobs")

_SCHEMA_LOCK = 0x7072_6F63  # advisory lock key: "proc"


def ensure_schema(conn: psycopg.Connection, *, migrations_path: Path | None = None,
                  installed: str | None = None) -> bool:
    """Create procrastinate's tables, or bring them up to the installed procrastinate;
    safe to call from many processes. Returns whether any SQL was applied now.

    The schema's version is kept in ``ragbot_job_schema``. After an upgrade of
    procrastinate, its own migration scripts (``procrastinate schema --migrations-path``)
    newer than that version are applied in their order, pre before post: the job worker
    of the new version is not running yet, so both can go at once. A database whose schema
    predates this record is taken to match the installed procrastinate. ``conn`` must be
    autocommit; the arguments are for tests.
    """
    installed = installed or version("procrastinate")
    path = migrations_path or Path(SchemaManager.get_migrations_path())
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", [_SCHEMA_LOCK])
        conn.execute("CREATE TABLE IF NOT EXISTS ragbot_job_schema (version text NOT NULL)")
        recorded = conn.execute("SELECT version FROM ragbot_job_schema").fetchone()
        row = conn.execute("SELECT to_regclass('procrastinate_jobs') IS NOT NULL").fetchone()
        if not (row and row[0]):
            conn.execute(SchemaManager.get_schema())  # procrastinate's own fixed SQL
            _record(conn, installed)
            log.info("job_schema_applied", version=installed)
            return True
        if recorded is None:
            _record(conn, installed)
            return False
        scripts = pending_migrations(path, applied=recorded[0], installed=installed)
        for script in scripts:
            conn.execute(script.read_text(encoding="utf-8"))
            log.info("job_schema_migrated", script=script.name)
        if scripts or _parse(recorded[0]) != _parse(installed):
            _record(conn, installed)
    return bool(scripts)


def pending_migrations(path: Path, *, applied: str, installed: str) -> list[Path]:
    """procrastinate's migration scripts after version ``applied`` up to ``installed``,
    in the order to apply them (their names sort that way: ``03.04.00_01_pre_…``)."""
    low, high = _parse(applied), _parse(installed)
    return [p for p in sorted(path.glob("*.sql"))
            if low < _parse(p.name.split("_", 1)[0]) <= high]


def _parse(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split(".")[:3] if part.isdigit())


def _record(conn: psycopg.Connection, installed: str) -> None:
    conn.execute("DELETE FROM ragbot_job_schema")
    conn.execute("INSERT INTO ragbot_job_schema (version) VALUES (%s)", [installed])
