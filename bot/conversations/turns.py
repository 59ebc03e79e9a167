"""Answering one journaled question: status message, agent run, the answer or an apology,
bookkeeping, on any surface through the ``Surface`` port.

``accept`` journals a question (before the surface is acknowledged); ``TurnRunner.start``
posts the status message and hands the turn to the work pool (``work``: worker processes
under ``ragbot serve``), where ``TurnRunner.run`` answers it. Every failure is caught
here, logged with the trace id, and shown to the asker as a short apology with that id,
never the exception text.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import structlog

from agent.types import Question
from bot.conversations import texts as m
from bot.conversations.live import LiveStatus
from bot.conversations.model import MAX_QUESTION_CHARS, Place, access
from bot.conversations.votes import settle_held_votes, vote_label
from store import conversations as journal
from store import retention
from store.conversations import Turn, TurnDraft, TurnKind, TurnState
from store.tokenize import language_of

if TYPE_CHECKING:
    from collections.abc import Sequence

    from agent.types import AnswerResult, StageEvent
    from bot.conversations.deps import AgentPort, ConversationDeps
    from bot.conversations.model import Inbound
    from bot.conversations.surface import Surface

log = structlog.get_logger("ragbot.conversations.turns")

# Waits between tries to journal a failed turn while the database is away (about 15 s).
FAIL_RETRY_DELAYS_S = (0.2, 0.5, 1.0, 2.0, 4.0, 8.0)


def new_trace_id() -> str:
    return uuid.uuid4().hex


def place_of(turn: Turn) -> Place:
    """Where ``turn`` is answered."""
    return Place(turn.surface, turn.workspace, turn.conversation, turn.thread,
                 dict(turn.address), key=turn.thread_key)


def accept(deps: ConversationDeps, q: Inbound, *, kind: TurnKind,
           text: str | None = None) -> Turn | None:
    """Journal the question and mark its thread as answered by the bot (one statement).
    None when the delivery or the message was already claimed (a duplicate)."""
    place = q.place
    draft = TurnDraft(
        surface=place.surface, workspace=place.workspace, conversation=place.conversation,
        message_id=q.message_id, thread=place.thread, thread_key=place.thread_key,
        asker=q.asker, kind=kind, text=q.text if text is None else text,
        kbs=q.kbs or deps.kbs.for_conversation(place.conversation, direct=q.kind == "direct"),
        truncated=q.truncated,
        delivery_id=q.delivery_id, address=dict(place.address))
    with deps.pool.connection() as conn:
        turn = journal.claim_turn(conn, draft, deps.instance_id)
    if turn is not None and kind != "help":
        deps.metrics.questions.labels(place.surface).inc()
    return turn


class TurnRunner:
    def __init__(self, deps: ConversationDeps) -> None:
        self.deps = deps

    # ------------------------------------------------------------------ entry points

    def start(self, turn: Turn) -> None:
        """Show the status message now and queue the agent run (called after the ack)."""
        trace_id = turn.trace_id or new_trace_id()
        lang = language_of(turn.text)
        surface = self.deps.surface_for(turn.surface)
        with structlog.contextvars.bound_contextvars(trace_id=trace_id, turn_id=turn.id,
                                                     thread=turn.thread_key):
            if turn.kind == "help":
                help_msg = surface.notice_message(m.help_text(surface.name, lang))
                self._finish(turn, self._status(turn), [help_msg], trace_id)
                return
            status_id = turn.status_id
            if status_id is None:  # a turn taken over after a crash keeps its message
                try:
                    status_id = self._status(turn).post(m.pick(m.THINKING, lang))
                except Exception:  # no status message: the answer is still posted at the end
                    log.exception("status_post_failed")
            surface.show_busy(place_of(turn), m.pick(m.ASSISTANT_STATUS, lang))
            with self.deps.pool.connection() as conn:
                journal.mark_running(conn, turn.id, status_id=status_id, trace_id=trace_id)
            work = self.deps.work
            if work is None:
                raise RuntimeError("no work pool to run turns on (a worker's own deps?)")
            work.submit(replace(turn, state="running", status_id=status_id,
                                trace_id=trace_id))

    def report_restart(self, turn: Turn) -> None:
        """Tell the asker an interrupted turn is lost (it was already retried)."""
        trace_id = turn.trace_id or new_trace_id()
        text = m.pick(m.RESTARTED, language_of(turn.text), trace_id=trace_id)
        with structlog.contextvars.bound_contextvars(trace_id=trace_id, turn_id=turn.id):
            log.warning("turn_reported_after_restart", attempts=turn.attempts)
            self.deps.metrics.failures.labels(turn.surface).inc()
            self._finish(turn, self._status(turn), [self._notice(turn, text)], trace_id,
                         state="failed")

    def report_timeout(self, turn: Turn) -> None:
        """Tell the asker a turn was stopped at its deadline (its worker did not stop by
        itself and was replaced): the apology with the trace id."""
        trace_id = turn.trace_id or new_trace_id()
        text = m.pick(m.APOLOGY, language_of(turn.text), trace_id=trace_id)
        with structlog.contextvars.bound_contextvars(trace_id=trace_id, turn_id=turn.id):
            self.deps.metrics.failures.labels(turn.surface).inc()
            self._finish(turn, self._status(turn), [self._notice(turn, text)], trace_id,
                         state="failed")

    # ------------------------------------------------------------------ the run

    def run(self, turn: Turn) -> None:
        """The agent turn, on a worker (thread or process) after ``start``; the status
        message is ``turn.status_id``. Never raises."""
        lang = language_of(turn.text)
        trace_id = turn.trace_id or new_trace_id()
        status = self._status(turn)
        started = time.perf_counter()
        with structlog.contextvars.bound_contextvars(trace_id=trace_id, turn_id=turn.id,
                                                     thread=turn.thread_key):
            try:
                self._answer(turn, status, trace_id, lang, started)
            except Exception:
                log.exception("turn_failed", surface=turn.surface)
                self.deps.metrics.outcome(turn.surface, None, time.perf_counter() - started)
                apology = self._notice(turn, m.pick(m.APOLOGY, lang, trace_id=trace_id))
                try:
                    self._finish(turn, status, [apology], trace_id, state="failed")
                except Exception:  # the surface or the database is down: the journal keeps it
                    log.exception("apology_failed")
                    self._mark_failed(turn, trace_id)

    def _answer(self, turn: Turn, status: LiveStatus, trace_id: str, lang: str,
                started: float) -> None:
        agent = self._agent()
        surface = self.deps.surface_for(turn.surface)
        place = place_of(turn)
        kind = surface.conversation_kind(place)
        acc = access(kind, conversation=turn.conversation, asker=turn.asker,
                     groups=surface.groups(turn.asker))
        q = Question(text=turn.text, thread_id=turn.thread_key, kb=turn.kb,
                     principals=acc.principals, user=turn.asker,
                     asker_principals=acc.asker_principals)

        def on_stage(event: StageEvent) -> None:
            if event.answer:
                status.answer(event.answer)
            else:
                status.stage(event.message)

        with self.deps.pool.connection() as conn:
            expired = retention.take_expired_note(conn, turn.surface, turn.conversation,
                                                  turn.thread)
        pending = agent.pending_clarification(turn.thread_key)
        if turn.kind == "resume" and pending is None:
            self._finish(turn, status, [self._notice(turn, m.pick(m.CLARIFY_EXPIRED, lang))],
                         trace_id)
            return
        if pending is not None and (turn.kind == "resume" or turn.thread != turn.message_id):
            result = agent.resume(q, turn.text, on_stage=on_stage)
        else:
            result = agent.ask(q, on_stage=on_stage)
        msgs = render(surface, result, truncated=turn.truncated, context_expired=expired)
        self._finish(turn, status, msgs, result.trace_id or trace_id)
        note = asker_note(result)
        if note is not None and not surface.notify_user(place, turn.asker, note):
            log.warning("asker_note_failed")
        self.deps.metrics.outcome(turn.surface, result, time.perf_counter() - started)
        log.info("turn_answered", surface=turn.surface, route=result.route,
                 refused=result.refused, rounds=result.rounds,
                 citations=len(result.citations), clarify=result.clarification is not None,
                 conversation=kind, agent_trace_id=result.trace_id, kb=turn.kb,
                 latency_ms=round((time.perf_counter() - started) * 1000, 1))

    def _mark_failed(self, turn: Turn, trace_id: str) -> None:
        """Journal the turn as failed, retrying a database that is briefly away (a
        failover, a restart): a turn left 'running' by a live owner is never taken over,
        so it would stay open for good."""
        for delay_s in (*FAIL_RETRY_DELAYS_S, None):
            try:
                with self.deps.pool.connection() as conn:
                    journal.finish_turn(conn, turn.id, "failed", trace_id)
            except Exception:
                if delay_s is None:
                    log.exception("turn_mark_failed_gave_up", turn_id=turn.id)
                    return
                log.warning("turn_mark_failed_retry", delay_s=delay_s, exc_info=True)
                time.sleep(delay_s)
            else:
                return

    def _finish(self, turn: Turn, status: LiveStatus, msgs: Sequence[Any], trace_id: str,
                *, state: TurnState = "done") -> None:
        posted = status.finish(msgs)
        # Recorded before anything else goes out: a click on a posted card, or a reaction
        # to a posted answer, looks the message up by its id. A reaction that came sooner
        # (on a streaming answer) was held, and becomes a vote here.
        with self.deps.pool.connection() as conn, conn.transaction():
            for message_id in posted:
                journal.record_bot_message(
                    conn, surface=turn.surface, conversation=turn.conversation,
                    message_id=message_id, trace_id=trace_id, thread_key=turn.thread_key,
                    turn_id=turn.id, kbs=turn.kbs)
            journal.finish_turn(conn, turn.id, state, trace_id)
            settled = settle_held_votes(conn, surface=turn.surface,
                                        conversation=turn.conversation, message_ids=posted)
        for votes in settled.values():
            for vote in votes.values():
                self.deps.metrics.votes.labels(turn.surface, vote_label(vote)).inc()
        self.deps.surface_for(turn.surface).show_busy(place_of(turn), "")

    def _notice(self, turn: Turn, text: str) -> Any:
        return self.deps.surface_for(turn.surface).notice_message(text)

    def _agent(self) -> AgentPort:
        if self.deps.agent is None:
            raise RuntimeError("no agent in this process (turns run in worker processes)")
        return self.deps.agent

    def _status(self, turn: Turn) -> LiveStatus:
        return LiveStatus(self.deps.surface_for(turn.surface), self.deps.pacer, place_of(turn),
                          ts=turn.status_id, asker=turn.asker)


def render(surface: Surface[Any], result: AnswerResult, *, truncated: bool,
           context_expired: bool = False) -> Sequence[Any]:
    """The messages that show ``result``; ``context_expired``: the thread's earlier turns
    were deleted by retention, so this answer did not see them."""
    lang = result.language if result.language in ("zh", "en") else language_of(result.text)
    notes = [m.pick(m.TRUNCATED, lang, limit=f"{MAX_QUESTION_CHARS:,}")] if truncated else []
    if context_expired:
        notes.append(m.pick(m.CONTEXT_EXPIRED, lang))
    if result.clarification is not None:
        return surface.clarify_messages(result.clarification, lang=lang)
    return surface.answer_messages(result, lang=lang, notes=notes)


def asker_note(result: AnswerResult) -> str | None:
    """The note for the asker alone when documents they may read personally, but not in
    this conversation, would have answered; everyone else sees only the plain refusal."""
    if not (result.refused and result.restricted_hidden):
        return None
    lang = result.language if result.language in ("zh", "en") else language_of(result.text)
    return m.pick(m.RESTRICTED, lang)
