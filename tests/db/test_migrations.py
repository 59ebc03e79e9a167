from __future__ import annotations

import threading

import psycopg

from store import migrations


def test_setup_is_idempotent_and_records_every_version(db_url: str) -> None:
    with psycopg.connect(db_url, autocommit=True) as conn:
        first = migrations.setup(conn)
        second = migrations.setup(conn)
        versions = [r[0] for r in conn.execute("SELECT v FROM ragbot_migrations ORDER BY v")]
    assert first == second == len(migrations.MIGRATIONS) - 1
    assert versions == list(range(len(migrations.MIGRATIONS)))


def test_concurrent_setup_applies_each_migration_once(pg_admin_url: str) -> None:
    from psycopg import sql
    from psycopg.conninfo import make_conninfo

    name = "t_concurrent_setup"
    with psycopg.connect(pg_admin_url, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)")
                     .format(sql.Identifier(name)))
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    url = make_conninfo(pg_admin_url, dbname=name)
    errors: list[BaseException] = []

    def run() -> None:
        try:
            with psycopg.connect(url, autocommit=True) as conn:
                migrations.setup(conn)
        except BaseException as exc:  # collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    with psycopg.connect(url, autocommit=True) as conn:
        count = conn.execute("SELECT count(*) FROM ragbot_migrations").fetchone()
    assert count is not None
    assert count[0] == len(migrations.MIGRATIONS)
    with psycopg.connect(pg_admin_url, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE {} WITH (FORCE)").format(sql.Identifier(name)))
