"""procrastinate's schema: created once, then migrated by procrastinate's own migration
scripts when procrastinate is upgraded (pre before post, each once)."""

from __future__ import annotations

from importlib.metadata import version
from pathlib import Path

import psycopg
import pytest
from procrastinate.schema import SchemaManager

from bot.job_schema import ensure_schema, pending_migrations

pytestmark = pytest.mark.db


def _recorded(conn: psycopg.Connection) -> str:
    row = conn.execute("SELECT version FROM ragbot_job_schema").fetchone()
    assert row is not None
    return str(row[0])


def test_upgrade_applies_the_new_migration_scripts_once_in_order(
        db_url: str, tmp_path: Path) -> None:
    scripts = {
        "03.10.00_01_pre_already_in_schema.sql": "CREATE TABLE never_applied (x int);",
        "03.11.00_01_pre_add_table.sql": "CREATE TABLE upgrade_steps (step text);"
                                         "INSERT INTO upgrade_steps VALUES ('pre');",
        "03.11.00_50_post_add_row.sql": "INSERT INTO upgrade_steps VALUES ('post');",
        "03.12.00_01_pre_not_yet.sql": "CREATE TABLE from_the_future (x int);",
    }
    for name, sql in scripts.items():
        (tmp_path / name).write_text(sql, encoding="utf-8")
    with psycopg.connect(db_url, autocommit=True) as conn:
        assert ensure_schema(conn, migrations_path=tmp_path, installed="3.10.0") is True
        assert _recorded(conn) == "3.10.0"

        assert ensure_schema(conn, migrations_path=tmp_path, installed="3.11.0") is True
        assert [r[0] for r in conn.execute("SELECT step FROM upgrade_steps")] == ["pre", "post"]
        assert _recorded(conn) == "3.11.0"
        assert ensure_schema(conn, migrations_path=tmp_path, installed="3.11.0") is False
        tables = {r[0] for r in conn.execute(
            "SELECT tablename FROM pg_tables WHERE tablename IN "
            "('never_applied', 'from_the_future', 'upgrade_steps')")}
        assert tables == {"upgrade_steps"}


def test_a_schema_from_before_the_record_is_taken_as_the_installed_version(
        db_url: str) -> None:
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute(SchemaManager.get_schema())  # what older ragbot versions applied
        assert ensure_schema(conn) is False
        assert _recorded(conn) == version("procrastinate")


def test_pending_scripts_come_from_procrastinates_own_migrations() -> None:
    path = Path(SchemaManager.get_migrations_path())
    names = [p.name for p in pending_migrations(path, applied="3.3.0", installed="3.4.0")]
    assert names == ["03.04.00_01_pre_add_retry_failed_job_procedure.sql",
                     "03.04.00_50_post_add_retry_failed_job_procedure.sql"]
