"""Answering one journaled question: status message, agent run, rendering, bookkeeping.

``accept`` journals a question (before Slack is acknowledged); ``TurnRunner.start`` posts
the status message and hands the turn to the work pool (``bot.slack.work``: worker
processes under ``ragbot serve``), where ``TurnRunner.run`` answers it. Every failure is
caught here, logged with the trace id, and shown to the user as a short apology with that
id, never the exception text.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import structlog

from bot.conversations import texts as m
from bot.slack import blocks
from bot.slack.status import LiveStatus
from bot.slack.translate import MAX_QUESTION_CHARS, ConversationKind, principals
from store import retention, slack_state
from store.slack_state import Turn, TurnDraft, TurnKind
from store.tokenize import is_chinese

if TYPE_CHECKING:
    from agent.api import AnswerResult, StageEvent
    from bot.slack.deps import AgentPort, SlackDeps
    from bot.slack.translate import Incoming

log = structlog.get_logger("ragbot.slack.turns")

# Waits between tries to journal a failed turn while the database is away (about 15 s).
FAIL_RETRY_DELAYS_S = (0.2, 0.5, 1.0, 2.0, 4.0, 8.0)

SURFACE = "slack"  # the metrics label


def new_trace_id() -> str:
    return uuid.uuid4().hex


def lang_of(text: str) -> str:
    return "zh" if is_chinese(text) else "en"


def accept(deps: SlackDeps, q: Incoming, *, kind: TurnKind, event_id: str | None,
           text: str | None = None, message_ts: str | None = None) -> Turn | None:
    """Journal the question and mark its thread as answered by the bot (one statement).
    None when the message was already claimed (a duplicate delivery)."""
    draft = TurnDraft(
        team=q.team, channel=q.channel, message_ts=message_ts or q.message_ts,
        thread_ts=q.thread_ts, thread_key=q.thread_key, user_id=q.user, kind=kind,
        text=q.text if text is None else text, kb=deps.kb_for(q.channel),
        truncated=q.truncated, event_id=event_id)
    with deps.pool.connection() as conn:
        turn = slack_state.claim_turn(conn, draft, deps.instance_id)
    if turn is not None and kind != "help":
        deps.metrics.questions.labels(SURFACE).inc()
    return turn


class TurnRunner:
    def __init__(self, deps: SlackDeps) -> None:
        self.deps = deps

    # ------------------------------------------------------------------ entry points

    def start(self, turn: Turn) -> None:
        """Show the status message now and queue the agent run (called after the ack)."""
        trace_id = turn.trace_id or new_trace_id()
        lang = lang_of(turn.text)
        with structlog.contextvars.bound_contextvars(trace_id=trace_id, turn_id=turn.id,
                                                     thread=turn.thread_key):
            if turn.kind == "help":
                status = self._status(turn)
                self._finish(turn, status, [blocks.notice_message(m.help_text(SURFACE, lang))],
                             trace_id, kb=turn.kb)
                return
            status_ts = turn.status_ts
            if status_ts is None:  # a turn taken over after a crash keeps its message
                try:
                    status_ts = self._status(turn).post(m.pick(m.THINKING, lang))
                except Exception:  # no status message: the answer is still posted at the end
                    log.exception("status_post_failed")
            self._set_assistant_status(turn, m.pick(m.ASSISTANT_STATUS, lang))
            with self.deps.pool.connection() as conn:
                slack_state.mark_running(conn, turn.id, status_ts=status_ts, trace_id=trace_id)
            work = self.deps.work
            if work is None:
                raise RuntimeError("no work pool to run turns on (a worker's own deps?)")
            work.submit(replace(turn, state="running", status_ts=status_ts,
                                trace_id=trace_id))

    def report_restart(self, turn: Turn) -> None:
        """Tell the asker an interrupted turn is lost (it was already retried)."""
        trace_id = turn.trace_id or new_trace_id()
        status = self._status(turn)
        text = m.pick(m.RESTARTED, lang_of(turn.text), trace_id=trace_id)
        with structlog.contextvars.bound_contextvars(trace_id=trace_id, turn_id=turn.id):
            log.warning("turn_reported_after_restart", attempts=turn.attempts)
            self.deps.metrics.failures.labels(SURFACE).inc()
            self._finish(turn, status, [blocks.notice_message(text)], trace_id, state="failed")

    def report_timeout(self, turn: Turn) -> None:
        """Tell the asker a turn was stopped at its deadline (its worker did not stop by
        itself and was replaced): the apology with the trace id."""
        trace_id = turn.trace_id or new_trace_id()
        text = m.pick(m.APOLOGY, lang_of(turn.text), trace_id=trace_id)
        with structlog.contextvars.bound_contextvars(trace_id=trace_id, turn_id=turn.id):
            self.deps.metrics.failures.labels(SURFACE).inc()
            self._finish(turn, self._status(turn), [blocks.notice_message(text)], trace_id,
                         state="failed")

    # ------------------------------------------------------------------ the run

    def run(self, turn: Turn) -> None:
        """The agent turn, on a worker (thread or process) after ``start``; the status
        message is ``turn.status_ts``. Never raises."""
        from agent.api import Question

        lang = lang_of(turn.text)
        trace_id = turn.trace_id or new_trace_id()
        status = self._status(turn)
        started = time.perf_counter()
        with structlog.contextvars.bound_contextvars(trace_id=trace_id, turn_id=turn.id,
                                                     thread=turn.thread_key):
            try:
                agent = self._agent()
                kind = self.deps.directory.kind(turn.channel)
                groups = self.deps.groups(turn.user_id)
                q = Question(text=turn.text, thread_id=turn.thread_key, kb=turn.kb,
                             principals=principals(kind, channel=turn.channel,
                                                   user=turn.user_id, groups=groups),
                             user=turn.user_id,
                             asker_principals=principals("dm", channel=turn.channel,
                                                         user=turn.user_id, groups=groups))

                def on_stage(event: StageEvent) -> None:
                    status.stage(event.message)

                with self.deps.pool.connection() as conn:
                    expired = retention.take_expired_note(conn, turn.channel, turn.thread_ts)
                pending = agent.pending_clarification(turn.thread_key)
                if turn.kind == "resume" and pending is None:
                    self._finish(turn, status, [blocks.notice_message(
                        m.pick(m.CLARIFY_EXPIRED, lang))], trace_id)
                    return
                if pending is not None and (turn.kind == "resume"
                                            or turn.thread_ts != turn.message_ts):
                    result = agent.resume(q, turn.text, on_stage=on_stage)
                else:
                    result = agent.ask(q, on_stage=on_stage)
                msgs = render(result, truncated=turn.truncated, kind=kind,
                              context_expired=expired,
                              link_hosts=self.deps.settings.link_hosts)
                self._finish(turn, status, msgs, result.trace_id or trace_id)
                note = asker_note(result)
                if note is not None:
                    self._tell_asker(turn, note)
                self.deps.metrics.outcome(SURFACE, result, time.perf_counter() - started)
                log.info("slack_answered", route=result.route, refused=result.refused,
                         rounds=result.rounds, citations=len(result.citations),
                         clarify=result.clarification is not None, conversation=kind,
                         agent_trace_id=result.trace_id, kb=turn.kb,
                         latency_ms=round((time.perf_counter() - started) * 1000, 1))
            except Exception:
                log.exception("slack_turn_failed")
                self.deps.metrics.outcome(SURFACE, None, time.perf_counter() - started)
                apology = blocks.notice_message(m.pick(m.APOLOGY, lang, trace_id=trace_id))
                try:
                    self._finish(turn, status, [apology], trace_id, state="failed")
                except Exception:  # Slack or the database is down: the journal keeps it
                    log.exception("slack_apology_failed")
                    self._mark_failed(turn, trace_id)

    def _mark_failed(self, turn: Turn, trace_id: str) -> None:
        """Journal the turn as failed, retrying a database that is briefly away (a
        failover, a restart): a turn left 'running' by a live owner is never taken over,
        so it would stay open for good."""
        for delay_s in (*FAIL_RETRY_DELAYS_S, None):
            try:
                with self.deps.pool.connection() as conn:
                    slack_state.finish_turn(conn, turn.id, "failed", trace_id)
            except Exception:
                if delay_s is None:
                    log.exception("turn_mark_failed_gave_up", turn_id=turn.id)
                    return
                log.warning("turn_mark_failed_retry", delay_s=delay_s, exc_info=True)
                time.sleep(delay_s)
            else:
                return

    def _finish(self, turn: Turn, status: LiveStatus, msgs: list[blocks.Message],
                trace_id: str, *, state: slack_state.TurnState = "done",
                kb: str | None = None) -> None:
        posted = status.finish(msgs)
        self._set_assistant_status(turn, "")
        with self.deps.pool.connection() as conn, conn.transaction():
            for ts in posted:
                slack_state.record_bot_message(conn, channel=turn.channel, ts=ts,
                                               trace_id=trace_id, thread_key=turn.thread_key,
                                               turn_id=turn.id, kb=kb or turn.kb)
            slack_state.finish_turn(conn, turn.id, state, trace_id)

    def _tell_asker(self, turn: Turn, text: str) -> None:
        """An ephemeral message in the thread that only the asker sees."""
        try:
            self.deps.client.chat_postEphemeral(channel=turn.channel, user=turn.user_id,
                                                thread_ts=turn.thread_ts, text=text)
        except Exception as exc:  # the answer itself is posted; the note is a courtesy
            log.warning("asker_note_failed", error=type(exc).__name__)

    def _agent(self) -> AgentPort:
        if self.deps.agent is None:
            raise RuntimeError("no agent in this process (turns run in worker processes)")
        return self.deps.agent

    def _status(self, turn: Turn) -> LiveStatus:
        return LiveStatus(self.deps.client, self.deps.pacer, channel=turn.channel,
                          thread_ts=turn.thread_ts, key=turn.thread_key, ts=turn.status_ts)

    def _set_assistant_status(self, turn: Turn, text: str) -> None:
        """``assistant.threads.setStatus`` applies to DM threads of assistant apps; in any
        other conversation Slack refuses it, which is fine."""
        if not turn.channel.startswith("D"):
            return
        try:
            self.deps.client.assistant_threads_setStatus(
                channel_id=turn.channel, thread_ts=turn.thread_ts, status=text)
        except Exception as exc:  # not an assistant thread, or a scope the app lacks
            log.debug("assistant_status_skipped", error=type(exc).__name__)


def render(result: AnswerResult, *, truncated: bool, kind: ConversationKind,
           context_expired: bool = False,
           link_hosts: Sequence[str] = ()) -> list[blocks.Message]:
    """The messages that show ``result`` (pure); ``context_expired``: the thread's earlier
    turns were deleted by retention, so this answer did not see them."""
    lang = result.language if result.language in ("zh", "en") else lang_of(result.text)
    notes = [m.pick(m.TRUNCATED, lang, limit=f"{MAX_QUESTION_CHARS:,}")] if truncated else []
    if context_expired:
        notes.append(m.pick(m.CONTEXT_EXPIRED, lang))
    if result.clarification is not None:
        c = result.clarification
        return [blocks.clarify_message(c.question, c.options, lang=lang)]
    return blocks.answer_messages(result.text, result.citations, lang=lang, notes=notes,
                                  link_hosts=link_hosts)


def asker_note(result: AnswerResult) -> str | None:
    """The note for the asker alone when documents they may read personally, but not in
    this conversation, would have answered; everyone else sees only the plain refusal."""
    if not (result.refused and result.restricted_hidden):
        return None
    lang = result.language if result.language in ("zh", "en") else lang_of(result.text)
    return m.pick(m.RESTRICTED, lang)
