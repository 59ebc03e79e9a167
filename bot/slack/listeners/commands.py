"""``/ragbot reindex [kb]``, ``/ragbot status [kb]``, ``/ragbot help``.

Parsing and texts are pure functions (tested without Slack); ``register(app, deps)`` wires
the slash command. Every command is acknowledged at once; work happens after the ack and
its result goes to the caller as an ephemeral message (or a DM where that is impossible).
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

import structlog
from slack_sdk.errors import SlackApiError

if TYPE_CHECKING:
    from psycopg_pool import ConnectionPool
    from slack_bolt import Ack, App
    from slack_sdk import WebClient

    from bot.jobs import JobQueue
    from bot.settings import Settings

log = structlog.get_logger("ragbot.slack.commands")

Action = Literal["reindex", "status", "help"]
_KB_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$")

HELP_TEXT = (
    "*ragbot commands*\n"
    "• `/ragbot status [kb]`: whether I am up; for admins also the documents, chunks, model "
    "and sources of the knowledge bases, and any reindex in progress\n"
    "• `/ragbot reindex [kb]` (admins): re-read and re-embed a knowledge base in the "
    "background; questions keep being answered from the current index until it is done\n"
    "• `/ragbot help`: this message\n"
    "Ask questions by mentioning me in a channel or in a DM; react 👍 or 👎 to an answer "
    "to tell me how it went."
)


class CommandError(ValueError):
    """The command text cannot be understood; the message says what to type instead."""


@dataclass(frozen=True)
class Command:
    action: Action
    kb: str | None = None

    @property
    def admin_only(self) -> bool:
        return self.action == "reindex"


def parse_command(text: str | None) -> Command:
    """Parse the text after ``/ragbot``. Empty text means help."""
    words = (text or "").split()
    if not words:
        return Command("help")
    action, args = words[0].lower(), words[1:]
    if action not in ("reindex", "status", "help"):
        raise CommandError(f"Unknown command `{words[0]}`. Try `/ragbot help`.")
    if action == "help":
        return Command("help")
    if len(args) > 1:
        raise CommandError(f"`/ragbot {action}` takes at most one knowledge base name, "
                           f"e.g. `/ragbot {action} default`.")
    kb = args[0] if args else None
    if kb is not None and not _KB_NAME.match(kb):
        raise CommandError(f"`{kb}` is not a knowledge base name (letters, digits, `_ . -`). "
                           "See `/ragbot status` for the names.")
    return Command(action, kb)  # type: ignore[arg-type]  # narrowed by the check above


def is_admin(user_id: str | None, admins: list[str] | tuple[str, ...]) -> bool:
    return bool(user_id) and user_id in admins


def refusal_text(command: Command) -> str:
    return (f":no_entry: `/ragbot {command.action}` is for ragbot admins only. "
            "Ask an admin to run it, or to add your Slack user id to RAGBOT_ADMINS.")


# What a non-admin's ``/ragbot status`` shows: knowledge base names, sizes and sources say
# what restricted material exists, so they are for admins only.
PUBLIC_STATUS = (":white_check_mark: ragbot is up and answering questions: mention me in a "
                 "channel or send me a DM. Knowledge base details are shown to ragbot admins.")


def reindex_ack_text(kb: str) -> str:
    return (f":hourglass_flowing_sand: Reindex of `{kb}` requested. It runs in the background; "
            "I'll post progress and the result here. Questions are answered from the current "
            "index meanwhile.")


def cache_text(stats: dict[str, Any] | None) -> str:
    """The answer cache's hit rate in words ("answer cache 40% hits (12 of 30)")."""
    if not stats or not stats.get("lookups"):
        return "answer cache not used yet"
    return (f"answer cache {stats['hits'] / stats['lookups']:.0%} hits "
            f"({stats['hits']} of {stats['lookups']})")


def status_text(kbs: list[dict[str, Any]], active: list[dict[str, Any]],
                missing: str | None = None) -> str:
    """The ``/ragbot status`` message from ``kb_status`` dicts and active reindex jobs."""
    if missing:
        return f"Knowledge base `{missing}` does not exist. " + (
            "Known: " + ", ".join(f"`{k['name']}`" for k in kbs) if kbs else
            "None exists yet: create one with `ragbot ingest PATH --kb NAME`.")
    if not kbs:
        return "No knowledge base yet: create one with `ragbot ingest PATH --kb NAME`."
    running = {j["kb"]: j["status"] for j in active}
    lines = ["*Knowledge bases*"]
    for s in kbs:
        state = {"doing": " — :arrows_counterclockwise: reindex running",
                 "todo": " — :hourglass: reindex queued"}.get(running.get(s["name"], ""), "")
        last = (s.get("last_ingest_at") or "never")[:19].replace("T", " ")
        lines.append(f"• `{s['name']}`: {s['documents']} documents, {s['chunks']} chunks, "
                     f"{s['embed_model']} ({s['embed_dim']}d), generation {s['generation']}, "
                     f"last ingest {last}, {cache_text(s.get('answer_cache'))}{state}")
    if not active:
        lines.append("No reindex running.")
    return "\n".join(lines)


# ---------------------------------------------------------------- Slack side

class CommandDeps(Protocol):
    settings: Settings
    pool: ConnectionPool
    jobs: JobQueue


class SlackNotifier:
    """Ephemeral message to the user in the channel; a DM when that is impossible."""

    def __init__(self, client: WebClient) -> None:
        self._client = client

    def notify(self, *, channel: str, user: str, text: str,
               response_url: str | None = None) -> None:
        try:
            self._client.chat_postEphemeral(channel=channel, user=user, text=text)
        except SlackApiError as exc:
            # e.g. a slash command from a DM the bot is not in: fall back below
            log.info("ephemeral_failed", error=exc.response.get("error"), channel=channel)
        else:
            return
        if response_url and self._via_response_url(response_url, text):
            return
        self._client.chat_postMessage(channel=user, text=text)

    @staticmethod
    def _via_response_url(response_url: str, text: str) -> bool:
        from slack_sdk.webhook import WebhookClient

        try:
            sent = WebhookClient(response_url, timeout=10).send(text=text,
                                                                response_type="ephemeral")
        except Exception:  # expired or unreachable: the DM still gets through
            log.info("response_url_failed", exc_info=True)
            return False
        return sent.status_code == 200


def _kb_statuses(deps: CommandDeps, kb: str | None) -> tuple[list[dict[str, Any]], str | None]:
    from store.kb import find_kb, kb_status, list_kbs

    with deps.pool.connection() as conn:
        if kb is not None and find_kb(conn, kb) is None:
            return [kb_status(conn, k.name) for k in list_kbs(conn)], kb
        names = [kb] if kb else [k.name for k in list_kbs(conn)]
        return [kb_status(conn, n) for n in names], None


def register(app: App, deps: CommandDeps) -> None:
    """Wire ``/ragbot`` on ``app``."""

    def handle(ack: Ack, command: dict[str, Any], client: WebClient) -> None:
        user, channel = command.get("user_id", ""), command.get("channel_id", "")
        response_url = command.get("response_url")
        bound = log.bind(user=user, channel=channel)
        try:
            cmd = parse_command(command.get("text"))
        except CommandError as exc:
            ack(text=str(exc), response_type="ephemeral")
            return
        bound.info("slash_command", action=cmd.action, kb=cmd.kb)
        if cmd.action == "help":
            ack(text=HELP_TEXT, response_type="ephemeral")
            return
        admin = is_admin(user, deps.settings.admins)
        if cmd.admin_only and not admin:
            bound.info("slash_command_refused", action=cmd.action)
            ack(text=refusal_text(cmd), response_type="ephemeral")
            return
        if cmd.action == "status" and not admin:
            ack(text=PUBLIC_STATUS, response_type="ephemeral")
            return
        notifier = SlackNotifier(client)
        kb = cmd.kb or deps.settings.default_kb
        if cmd.action == "reindex":
            ack(text=reindex_ack_text(kb), response_type="ephemeral")
        else:
            ack()  # the status follows as an ephemeral message
        # after the ack: a failure is logged with a reference and the user gets an apology
        try:
            if cmd.action == "status":
                kbs, missing = _kb_statuses(deps, cmd.kb)
                notifier.notify(channel=channel, user=user, response_url=response_url,
                                text=status_text(kbs, deps.jobs.active_reindexes(), missing))
            else:
                _start_reindex(deps, notifier, kb=kb, channel=channel, user=user,
                               response_url=response_url)
        except Exception:
            ref = uuid.uuid4().hex
            bound.exception("slash_command_failed", action=cmd.action, trace_id=ref)
            notifier.notify(channel=channel, user=user, response_url=response_url,
                            text=f"Sorry, `/ragbot {cmd.action}` failed. If you report it, "
                                 f"mention reference `{ref}`.")

    app.command("/ragbot")(handle)


def _start_reindex(deps: CommandDeps, notifier: SlackNotifier, *, kb: str, channel: str,
                   user: str, response_url: str | None) -> None:
    from bot.jobs import AlreadyQueuedError
    from store.kb import find_kb

    with deps.pool.connection() as conn:
        exists = find_kb(conn, kb) is not None
    if not exists:
        notifier.notify(channel=channel, user=user, response_url=response_url,
                        text=f"Knowledge base `{kb}` does not exist, so there is nothing to "
                             "reindex. See `/ragbot status` for the names.")
        return
    try:
        job_id = deps.jobs.defer_reindex(kb=kb, channel=channel, user=user,
                                         response_url=response_url)
    except AlreadyQueuedError:
        notifier.notify(channel=channel, user=user, response_url=response_url,
                        text=f"A reindex of `{kb}` is already queued (its result goes to "
                             "whoever asked first); follow it with `/ragbot status`.")
        return
    log.info("reindex_queued", kb=kb, job_id=job_id, user=user)


def start_job_worker(database_url: str, pool: ConnectionPool, embedder: Any,
                     client: WebClient, **options: Any) -> Any:
    """Start the background job worker of ``ragbot serve``; returns a ``bot.jobs.Worker``.

    Reindex jobs run ``store.reindex.reindex`` and report to the admin through ``client``.
    """
    from bot.jobs import JobDeps, start_worker, store_reindex

    deps = JobDeps(reindex=store_reindex(pool, embedder), notifier=SlackNotifier(client))
    return start_worker(database_url, deps, **options)
