"""``/ragbot reindex [kb]``, ``/ragbot status [kb]``, ``/ragbot help``: Slack's slash
command into the core's admin commands (``bot.conversations.commands``).

Every command is acknowledged at once (the ack carries the immediate reply, ephemeral);
the result follows as an ephemeral message, through the response URL, or a DM.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from bot.conversations.commands import CommandDeps, SurfaceNotifier, handle_command
from bot.conversations.model import Place
from bot.slack.access import ChannelDirectory
from bot.slack.surface import SlackSurface
from bot.slack.translate import SURFACE

if TYPE_CHECKING:
    from psycopg_pool import ConnectionPool
    from slack_bolt import Ack, App
    from slack_sdk import WebClient

    from bot.conversations.surface import Surface


class SlackNotifier(SurfaceNotifier):
    """The job worker's way back to Slack: ephemeral to the admin in the channel, else
    through the response URL, else a DM."""

    def __init__(self, client: WebClient) -> None:
        super().__init__({SURFACE: SlackSurface(client, ChannelDirectory(client))})


class SlashDeps(CommandDeps, Protocol):
    surface: Surface[Any]


def register(app: App, deps: SlashDeps) -> None:
    """Wire ``/ragbot`` on ``app``."""

    def handle(ack: Ack, command: dict[str, Any]) -> None:
        response_url = command.get("response_url")
        place = Place(SURFACE, str(command.get("team_id") or ""),
                      str(command.get("channel_id") or ""), "",
                      {"response_url": response_url} if response_url else {})

        def reply(text: str | None) -> None:
            if text is None:
                ack()
            else:
                ack(text=text, response_type="ephemeral")

        handle_command(deps, deps.surface, place, user=str(command.get("user_id") or ""),
                       text=command.get("text"), ack=reply)

    app.command("/ragbot")(handle)


def start_job_worker(database_url: str, pool: ConnectionPool, embedder: Any,
                     client: WebClient, **options: Any) -> Any:
    """Start the background job worker of ``ragbot serve``; returns a ``bot.jobs.Worker``.

    Reindex jobs run ``store.reindex.reindex`` and report to the admin through ``client``.
    """
    from bot.jobs import JobDeps, start_worker, store_reindex

    deps = JobDeps(reindex=store_reindex(pool, embedder), notifier=SlackNotifier(client))
    return start_worker(database_url, deps, **options)
