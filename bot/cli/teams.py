"""``ragbot teams package --out ragbot-teams.zip``: the Teams app package to upload."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bot.context import AppContext

# teams/ beside the bot package: the manifest template and the icons
DEFAULT_SOURCE = Path(__file__).resolve().parents[2] / "teams"


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("teams", help="Microsoft Teams: build the app package")
    teams_sub = parser.add_subparsers(dest="teams_command", metavar="COMMAND", required=True)
    package = teams_sub.add_parser(
        "package", help="zip teams/manifest.json (with RAGBOT_TEAMS_APP_ID filled in) and "
                        "its icons, for Teams' 'Upload a custom app'")
    package.add_argument("--out", type=Path, default=Path("ragbot-teams.zip"),
                         metavar="ragbot-teams.zip")
    package.add_argument("--source", type=Path, default=DEFAULT_SOURCE,
                         help="folder with manifest.json, color.png, outline.png "
                              "(default: the repository's teams/)")
    package.set_defaults(handler=handle)


def handle(args: argparse.Namespace, ctx: AppContext) -> int:
    from bot.teams.package import PackageError, build

    app_id = ctx.settings.teams_app_id
    if not app_id:
        print("error: set RAGBOT_TEAMS_APP_ID to the bot's Entra application id "
              "(see README: Microsoft Teams)", file=sys.stderr)
        return 2
    try:
        out = build(args.source, app_id, args.out)
    except (PackageError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {out}: upload it in Teams (Apps > Manage your apps > Upload an app)")
    return 0
