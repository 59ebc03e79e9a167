"""``ragbot db``: the embedded PostgreSQL."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bot.context import AppContext


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("db", help="start, stop or locate the embedded PostgreSQL")
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    for name, help_text, handler in (
        ("start", "start the embedded server (commands start it on demand anyway)", _start),
        ("stop", "stop the embedded server", _stop),
        ("url", "print the database URL ragbot uses", _url),
    ):
        actions.add_parser(name, help=help_text).set_defaults(handler=handler)
    prune = actions.add_parser(
        "prune", help="delete data past RAGBOT_RETENTION_DAYS now (the worker does it daily)")
    prune.add_argument("--days", type=int, default=None,
                       help="retention in days for this run (default RAGBOT_RETENTION_DAYS)")
    prune.set_defaults(handler=_prune)


def _start(args: argparse.Namespace, ctx: AppContext) -> int:
    import psycopg

    from store import migrations
    from store.redaction import redact_text

    with psycopg.connect(ctx.database_url, autocommit=True) as conn:
        version = migrations.setup(conn)
    print(f"database ready at {redact_text(ctx.database_url)} (schema version {version})")
    return 0


def _stop(args: argparse.Namespace, ctx: AppContext) -> int:
    from store.server import stop_embedded

    if ctx.settings.database_url:
        print("DATABASE_URL is set: ragbot does not manage that server")
        return 0
    stopped = stop_embedded(ctx.settings.home)
    print("embedded PostgreSQL stopped" if stopped else "embedded PostgreSQL was not running")
    return 0


def _prune(args: argparse.Namespace, ctx: AppContext) -> int:
    from store.retention import prune_expired

    days = ctx.settings.retention_days if args.days is None else args.days
    if days < 1:
        print("error: --days must be at least 1", file=sys.stderr)
        return 2
    with ctx.pool.connection() as conn:
        report = prune_expired(conn, days=days)
    print(f"pruned data older than {days} days:")
    for name, count in report.to_json().items():
        print(f"  {name.replace('_', ' ')}: {count}")
    return 0


def _url(args: argparse.Namespace, ctx: AppContext) -> int:
    print(ctx.database_url)
    return 0
