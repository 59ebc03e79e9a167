"""Answering one journaled Teams turn: progress, the agent run, the answer, bookkeeping.
Every failure is caught here, logged with the trace id, and shown to the asker as a short
apology with that id, never the exception text."""

from __future__ import annotations

import time
import uuid
from typing import TYPE_CHECKING, Any

import structlog

from bot.teams import messages as m
from bot.teams import render
from bot.teams.progress import Progress, StatusProgress, StreamProgress
from store import teams_state
from store.tokenize import is_chinese

if TYPE_CHECKING:
    from agent.api import AnswerResult, StageEvent
    from bot.teams.deps import TeamsDeps
    from store.teams_state import TeamsTurn

log = structlog.get_logger("ragbot.teams.turns")
SURFACE = "teams"


def lang_of(text: str) -> str:
    return "zh" if is_chinese(text) else "en"


class TeamsTurnRunner:
    def __init__(self, deps: TeamsDeps) -> None:
        self.deps = deps

    def progress(self, turn: TeamsTurn) -> Progress:
        cls = StreamProgress if turn.chat_type == "personal" else StatusProgress
        return cls(self.deps.connector, service_url=turn.service_url,
                   conversation_id=turn.conversation_id,
                   reply_to=turn.activity_id.partition(":")[0], pacer=self.deps.pacer,
                   key=turn.thread_key)

    def run(self, turn: TeamsTurn) -> None:
        """Answer ``turn`` (on a worker thread after the 200). Never raises."""
        from agent.api import Question

        trace_id = turn.trace_id or uuid.uuid4().hex
        lang = lang_of(turn.text)
        started = time.perf_counter()
        with structlog.contextvars.bound_contextvars(trace_id=trace_id, turn_id=turn.id,
                                                     thread=turn.thread_key):
            progress = self.progress(turn)
            try:
                with self.deps.pool.connection() as conn:
                    teams_state.mark(conn, turn.id, "running", trace_id)
                progress.start(m.pick(m.THINKING, lang))
                agent = self.deps.agent()
                q = Question(text=turn.text, thread_id=turn.thread_key, kb=turn.kb,
                             principals=turn.principals, user=turn.user_id,
                             asker_principals=turn.asker_principals)

                def on_stage(event: StageEvent) -> None:
                    progress.stage(event.message)

                pending = agent.pending_clarification(turn.thread_key)
                if pending is not None:  # a click, or a typed reply to the question
                    result = agent.resume(q, turn.text, on_stage=on_stage)
                else:
                    result = agent.ask(q, on_stage=on_stage)
                activity = self.render(turn, result)
                message_id = progress.finish(activity)
                with self.deps.pool.connection() as conn, conn.transaction():
                    if message_id and result.clarification is None:
                        teams_state.record_bot_message(
                            conn, activity_id=message_id, conversation_id=turn.conversation_id,
                            trace_id=result.trace_id or trace_id, thread_key=turn.thread_key,
                            kb=turn.kb)
                    teams_state.mark(conn, turn.id, "done", result.trace_id or trace_id)
                self._note_to_asker(turn, result)
                self.deps.metrics.outcome(SURFACE, result, time.perf_counter() - started)
                log.info("teams_answered", route=result.route, refused=result.refused,
                         citations=len(result.citations), chat=turn.chat_type,
                         clarify=result.clarification is not None, kb=turn.kb,
                         latency_ms=round((time.perf_counter() - started) * 1000, 1))
            except Exception:
                log.exception("teams_turn_failed")
                self.deps.metrics.outcome(SURFACE, None, time.perf_counter() - started)
                self._apologise(turn, progress, trace_id, lang)

    def render(self, turn: TeamsTurn, result: AnswerResult) -> dict[str, Any]:
        lang = result.language if result.language in ("zh", "en") else lang_of(result.text)
        if result.clarification is not None:
            c = result.clarification
            return render.clarify_card(c.question, c.options, hint=m.pick(m.CLARIFY_HINT, lang),
                                       run={"thread": turn.thread_key, "turn": turn.id})
        notes = [m.pick(m.TRUNCATED, lang, limit="4,000")] if turn.truncated else []
        return render.answer_message(result.text, result.citations, notes=notes,
                                     link_hosts=self.deps.settings.link_hosts)

    def _note_to_asker(self, turn: TeamsTurn, result: AnswerResult) -> None:
        """Restricted documents would have answered: only a 1:1 chat can tell the asker
        alone, and there the answer could use them already, so the note is for channels
        and group chats, sent to the asker's 1:1 chat when the bot has one (not yet)."""
        if result.refused and result.restricted_hidden and turn.chat_type == "personal":
            log.info("teams_restricted_hidden_in_personal")

    def _apologise(self, turn: TeamsTurn, progress: Progress, trace_id: str,
                   lang: str) -> None:
        try:
            progress.finish(render.text_message(m.pick(m.APOLOGY, lang, trace_id=trace_id)))
        except Exception:
            log.exception("teams_apology_failed")
        try:
            with self.deps.pool.connection() as conn:
                teams_state.mark(conn, turn.id, "failed", trace_id)
        except Exception:  # the journal keeps it open: a later start reports it
            log.exception("teams_mark_failed")
