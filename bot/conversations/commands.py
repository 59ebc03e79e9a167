"""Admin commands (``reindex [kb]``, ``status [kb]``, ``help``), for every surface.

Parsing is pure; ``handle_command`` runs one: the immediate reply goes to ``ack`` (Slack
acknowledges a slash command with it; a surface without acks posts it), the admin check
asks the surface, and work happens after the ack. Results go to the caller alone through
``Surface.notify_user``; the reindex job reports back the same way from the job worker
(``SurfaceNotifier``).
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

import structlog

from bot.conversations import texts
from bot.conversations.model import Place
from bot.jobs import AlreadyQueuedError
from store.kb import find_kb, kb_status, list_kbs
from store.tokenize import language_of

if TYPE_CHECKING:
    from psycopg_pool import ConnectionPool

    from bot.conversations.surface import Surface
    from bot.jobs import JobQueue
    from bot.settings import Settings

log = structlog.get_logger("ragbot.conversations.commands")

Action = Literal["reindex", "status", "help"]
_KB_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$")


class CommandError(ValueError):
    """The command text cannot be understood; the message says what to type instead."""


@dataclass(frozen=True)
class Command:
    action: Action
    kb: str | None = None
    # the asker's: the replies and the job's reports are in it; "" when the command carries
    # no words to tell it by (a bare /ragbot), and help then comes in both languages
    lang: str = "en"

    @property
    def admin_only(self) -> bool:
        return self.action == "reindex"


def parse_command(text: str | None) -> Command:
    """Parse the text after the command word. Empty text means help, in both languages (a
    slash command carries no language). Chinese command words (``texts.COMMAND_WORDS``) work
    too, and make the replies Chinese."""
    words = (text or "").split()
    # a Chinese command word is the surest sign (a KB name after it is ASCII)
    lang = "zh" if words and words[0] in texts.COMMAND_WORDS else language_of(text or "")
    if not words:
        return Command("help", lang="")
    action = texts.COMMAND_WORDS.get(words[0], words[0].lower())
    args = words[1:]
    if action not in ("reindex", "status", "help"):
        raise CommandError(texts.pick(texts.UNKNOWN_COMMAND, lang, word=words[0]))
    if action == "help":
        return Command("help", lang=lang)
    if len(args) > 1:
        raise CommandError(texts.pick(texts.ONE_KB_ONLY, lang, action=words[0]))
    kb = args[0] if args else None
    if kb is not None and not _KB_NAME.match(kb):
        raise CommandError(texts.pick(texts.BAD_KB_NAME, lang, kb=kb))
    return Command(action, kb, lang)  # type: ignore[arg-type]  # narrowed by the check above


class CommandDeps(Protocol):
    settings: Settings
    pool: ConnectionPool
    jobs: JobQueue | None

    @property
    def default_kb(self) -> str: ...


Ack = Callable[[str | None], None]


def handle_command(deps: CommandDeps, surface: Surface[Any], place: Place, *, user: str,
                   text: str | None, ack: Ack) -> None:
    """Run the command ``text`` that ``user`` sent in ``place``. ``ack`` gets the
    immediate reply (None: nothing to say yet, the result follows)."""
    bound = log.bind(surface=surface.name, user=user, conversation=place.conversation)
    try:
        cmd = parse_command(text)
    except CommandError as exc:
        ack(str(exc))
        return
    bound.info("command", action=cmd.action, kb=cmd.kb)
    lang = cmd.lang
    if cmd.action == "help":
        ack(texts.command_help(lang))
        return
    admin = surface.is_admin(user)
    if cmd.admin_only and not admin:
        bound.info("command_refused", action=cmd.action)
        ack(texts.pick(texts.REFUSALS.get(surface.name, texts.REFUSAL), lang,
                       action=cmd.action))
        return
    if cmd.action == "status" and not admin:
        ack(texts.pick(texts.PUBLIC_STATUS, lang))
        return
    kb = cmd.kb or deps.default_kb
    ack(texts.pick(texts.REINDEX_ACK, lang, kb=kb) if cmd.action == "reindex" else None)

    def tell(message: str) -> None:
        if not surface.notify_user(place, user, message):
            bound.warning("command_reply_lost", action=cmd.action)

    jobs = deps.jobs
    # after the ack: a failure is logged with a reference and the user gets an apology
    try:
        if jobs is None:
            _no_jobs()
        elif cmd.action == "status":
            kbs, missing = kb_statuses(deps.pool, cmd.kb)
            tell(texts.status_text(kbs, jobs.active_reindexes(), missing, lang))
        else:
            start_reindex(deps.pool, jobs, place, user=user, kb=kb, tell=tell, lang=lang)
    except Exception:
        ref = uuid.uuid4().hex
        bound.exception("command_failed", action=cmd.action, trace_id=ref)
        tell(texts.pick(texts.COMMAND_FAILED, lang, action=cmd.action, ref=ref))


def _no_jobs() -> None:
    raise RuntimeError("no job queue: admin commands are off in this process")


def kb_statuses(pool: ConnectionPool,
                kb: str | None) -> tuple[list[dict[str, Any]], str | None]:
    """``kb_status`` of ``kb`` (or of every KB), and ``kb`` again when it does not exist."""
    with pool.connection() as conn:
        if kb is not None and find_kb(conn, kb) is None:
            return [kb_status(conn, k.name) for k in list_kbs(conn)], kb
        names = [kb] if kb else [k.name for k in list_kbs(conn)]
        return [kb_status(conn, n) for n in names], None


def start_reindex(pool: ConnectionPool, jobs: JobQueue, place: Place, *, user: str, kb: str,
                  tell: Callable[[str], None], lang: str = "en") -> None:
    """Queue a reindex of ``kb`` whose job reports to ``user`` in ``place``, in ``lang``."""
    with pool.connection() as conn:
        exists = find_kb(conn, kb) is not None
    if not exists:
        tell(texts.pick(texts.NO_SUCH_KB, lang, kb=kb))
        return
    try:
        job_id = jobs.defer_reindex(kb=kb, channel=place.conversation, user=user,
                                    response_url=place.address.get("response_url"),
                                    surface=place.surface, lang=lang,
                                    address=dict(place.address))
    except AlreadyQueuedError:
        tell(texts.pick(texts.ALREADY_QUEUED, lang, kb=kb))
        return
    log.info("reindex_queued", kb=kb, job_id=job_id, user=user, surface=place.surface)


class SurfaceNotifier:
    """``bot.jobs.Notifier`` through the surfaces: a job's report reaches its admin on the
    surface the command came from."""

    def __init__(self, surfaces: Mapping[str, Surface[Any]]) -> None:
        self.surfaces = dict(surfaces)

    def notify(self, *, channel: str, user: str, text: str, response_url: str | None = None,
               surface: str = "slack", address: dict[str, str] | None = None) -> None:
        """Tell ``user`` alone; raises when it could not be delivered (the job logs it)."""
        routing = dict(address or {})
        if response_url:
            routing["response_url"] = response_url
        place = Place(surface, routing.get("workspace", ""), channel, "", routing)
        if surface not in self.surfaces:
            raise LookupError(f"no surface {surface!r} in the job worker")
        if not self.surfaces[surface].notify_user(place, user, text):
            raise RuntimeError(f"could not tell the admin on {surface}")
