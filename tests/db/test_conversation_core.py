"""The conversation core driven by an in-memory surface (tests/fakes/fake_surface.py): no
chat SDK, a real Postgres journal and the real agent (wrapped only to inject a fault)."""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import pytest

from agent.api import build_agent
from bot.conversations import texts
from bot.conversations.commands import SurfaceNotifier, handle_command
from bot.conversations.deps import ConversationDeps
from bot.conversations.model import ConversationKbs, Inbound, Place
from bot.conversations.pacing import ThreadPacer
from bot.conversations.recovery import Maintenance
from bot.conversations.turns import TurnRunner, accept
from bot.conversations.votes import DOWN, UP, record_vote
from bot.conversations.work import ThreadTurnWork
from bot.http.metrics import Metrics
from bot.settings import Settings
from store import conversations as journal
from store.feedback import get_votes
from store.types import SourceDocument
from tests.fakes.fake_surface import FakeSurface
from tests.scenario.agents import ExplodingAgent, SlowStages

pytestmark = [pytest.mark.db, pytest.mark.model]

KB = "core-test"
DOCS = [
    SourceDocument(doc_key="kiln", source="kb/kiln.md", title="Kiln firing schedule",
                   fmt="markdown", text=(
                       "# Kiln firing schedule\n\nBisque ware must be dropped off by "
                       "Wednesday at 18:00; the kiln is fired every Thursday night.\n")),
    SourceDocument(doc_key="glaze", source="kb/glaze.md", title="Glaze safety",
                   fmt="markdown", text=(
                       "# Glaze safety\n\nWear a respirator when mixing dry glaze powder; "
                       "wet glazes only need gloves.\n")),
]


@pytest.fixture
def kb_pool(pool, embedder):  # type: ignore[no-untyped-def]
    from store.ingest import ingest_documents

    ingest_documents(pool, KB, list(DOCS), embedder=embedder)
    return pool


@pytest.fixture
def agent(kb_pool, embedder) -> Iterator[Any]:  # type: ignore[no-untyped-def]
    a = build_agent(kb_pool, embedder)
    yield a
    a.close()


def _deps(pool: Any, surface: FakeSurface, agent: Any, *, me: str = "live-1",
          interval_s: float = 0.05, **kw: Any) -> ConversationDeps:
    return ConversationDeps(settings=Settings(), pool=pool, agent=agent, surface=surface,
                            instance_id=me, work=ThreadTurnWork(2), pacer=ThreadPacer(interval_s),
                            kbs=ConversationKbs(default=(KB,)), metrics=Metrics(),
                            stale_after_s=0.5, **kw)


_ids = itertools.count(1)


def _inbound(surface: FakeSurface, text: str, *, conversation: str = "room-1",
             thread: str | None = None, message_id: str | None = None,
             delivery_id: str | None = None, asker: str = "ann") -> Inbound:
    message_id = message_id or f"msg-{next(_ids)}"
    place = Place(surface.name, "ws", conversation, thread or message_id)
    return Inbound(place=place, message_id=message_id, asker=asker, text=text,
                   delivery_id=delivery_id)


def _run(deps: ConversationDeps, q: Inbound) -> journal.Turn:
    """Accept ``q`` and answer it through the work pool; the finished journal row."""
    runner = TurnRunner(deps)
    assert deps.work is not None
    deps.work.start(runner, lambda t: None)
    turn = accept(deps, q, kind="ask")
    assert turn is not None
    runner.start(turn)
    return _finished(deps, turn.id)


def _finished(deps: ConversationDeps, turn_id: int, timeout_s: float = 60.0) -> journal.Turn:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        with deps.pool.connection() as conn:
            turn = journal.get_turn(conn, turn_id)
        assert turn is not None
        if turn.state in ("done", "failed"):
            return turn
        time.sleep(0.05)
    raise AssertionError(f"turn {turn_id} did not finish")


def test_a_message_delivered_twice_is_accepted_and_answered_once(kb_pool, agent) -> None:  # type: ignore[no-untyped-def]
    surface = FakeSurface()
    deps = _deps(kb_pool, surface, agent)
    q = _inbound(surface, "By when must bisque ware be dropped off?", delivery_id="d-1")
    turn = _run(deps, q)
    # the same delivery again, the same message through another delivery, and the same
    # message from another replica: none is a new question
    assert accept(deps, q, kind="ask") is None
    assert accept(deps, _replace_delivery(q, "d-2"), kind="ask") is None
    other = _deps(kb_pool, surface, agent, me="live-2")
    assert accept(other, _replace_delivery(q, "d-3"), kind="ask") is None
    assert turn.state == "done"
    answers = surface.shown("answer")
    assert len(answers) == 1
    assert "Wednesday" in answers[0].text
    # the status message became the answer: one post, then updates of that message
    writes = surface.writes_in(q.place.thread_key)
    assert [w.op for w in writes].count("post") == 1
    assert writes[-1].message_id == turn.status_id
    with kb_pool.connection() as conn:
        assert journal.is_answered_thread(conn, surface.name, "room-1", q.place.thread)
    assert deps.metrics.questions.labels(surface.name)._value.get() == 1


def _replace_delivery(q: Inbound, delivery_id: str) -> Inbound:
    from dataclasses import replace

    return replace(q, delivery_id=delivery_id)


def test_a_turn_whose_process_died_is_rerun_by_a_live_one(kb_pool, agent) -> None:  # type: ignore[no-untyped-def]
    surface = FakeSurface()
    dead = _deps(kb_pool, surface, agent, me="dead-1")
    turn = accept(dead, _inbound(surface, "What must I wear to mix dry glaze?"), kind="ask")
    assert turn is not None  # journaled, acknowledged, then the process was killed
    live = _deps(kb_pool, surface, agent, me="live-1")
    maintenance = Maintenance(live)
    assert live.work is not None
    live.work.start(maintenance.runner, maintenance.recover_lost)
    maintenance.beat()
    time.sleep(0.6)  # the dead process's heartbeat is stale now
    assert maintenance.recover_once() == 1
    done = _finished(live, turn.id)
    assert done.state == "done"
    assert done.owner == "live-1"
    assert done.attempts == 2
    assert "respirator" in surface.shown("answer")[0].text
    assert maintenance.recover_once() == 0  # finished turns are nobody's orphans


def test_a_turn_lost_twice_is_reported_with_its_trace_id(kb_pool, agent) -> None:  # type: ignore[no-untyped-def]
    surface = FakeSurface()
    first = _deps(kb_pool, surface, agent, me="dead-1")
    turn = accept(first, _inbound(surface, "When does the kiln fire?"), kind="ask")
    assert turn is not None
    time.sleep(0.6)
    with kb_pool.connection() as conn:  # a second process took it over, then died too
        assert len(journal.claim_orphans(conn, "dead-2", stale_after_s=0.5,
                                         surfaces=(surface.name,))) == 1
    time.sleep(0.6)
    live = _deps(kb_pool, surface, agent, me="live-1")
    maintenance = Maintenance(live)
    maintenance.beat()
    assert maintenance.recover_once() == 1
    done = _finished(live, turn.id)
    assert done.state == "failed"
    (notice,) = surface.shown("notice")
    assert done.trace_id is not None
    assert done.trace_id in notice.text
    assert "restarted" in notice.text
    assert surface.shown("answer") == []


def test_orphans_of_a_surface_this_process_does_not_speak_are_left_alone(kb_pool, agent) -> None:  # type: ignore[no-untyped-def]
    other = FakeSurface("elsewhere")
    turn = accept(_deps(kb_pool, other, agent, me="dead-1"),
                  _inbound(other, "When does the kiln fire?"), kind="ask")
    assert turn is not None
    time.sleep(0.6)
    live = _deps(kb_pool, FakeSurface(), agent)
    Maintenance(live).beat()
    assert Maintenance(live).recover_once() == 0


def test_stage_updates_of_a_thread_are_paced(kb_pool, agent) -> None:  # type: ignore[no-untyped-def]
    surface = FakeSurface()
    deps = _deps(kb_pool, surface, SlowStages(agent, 0.3), interval_s=0.4)
    q = _inbound(surface, "What must I wear to mix dry glaze?")
    _run(deps, q)
    writes = surface.writes_in(q.place.thread_key)
    times = [w.at for w in writes]
    assert len(writes) >= 3  # status, at least one stage line, the answer
    assert all(b - a >= 0.39 for a, b in itertools.pairwise(times))
    assert writes[-1].message.kind == "answer"
    stages = [w.message.text for w in writes if w.message.kind == "status"]
    assert stages[0] == texts.THINKING["en"]


def test_a_failed_turn_gets_an_apology_with_its_trace_id_and_no_error_text(kb_pool) -> None:  # type: ignore[no-untyped-def]
    surface = FakeSurface()
    deps = _deps(kb_pool, surface, ExplodingAgent())
    turn = _run(deps, _inbound(surface, "下周窑炉什么时候烧？"))
    assert turn.state == "failed"
    (apology,) = surface.shown("notice")
    assert turn.trace_id is not None
    assert turn.trace_id in apology.text
    assert apology.text.startswith("抱歉")
    assert ExplodingAgent.SECRET not in apology.text
    assert deps.metrics.failures.labels(surface.name)._value.get() == 1


def test_votes_are_per_user_replaced_withdrawn_and_only_on_answers(kb_pool, agent) -> None:  # type: ignore[no-untyped-def]
    surface = FakeSurface()
    deps = _deps(kb_pool, surface, agent)
    q = _inbound(surface, "When does the kiln fire?")
    turn = _run(deps, q)
    assert turn.status_id is not None

    def vote(user: str, v: Any, present: bool, at: str, message_id: str = turn.status_id,
             ) -> Any:
        return record_vote(deps, surface=surface.name, conversation="room-1",
                           message_id=message_id, user=user, vote=v, present=present,
                           at=Decimal(at), bot_user="the-bot")

    assert vote("ann", UP, True, "10").vote == UP
    assert vote("bob", DOWN, True, "11").vote == DOWN  # another user's own vote
    assert vote("ann", DOWN, True, "12").vote == DOWN  # replaces ann's 👍
    stale = vote("ann", DOWN, True, "9")  # an older redelivery changes nothing
    assert not stale.applied
    assert vote("ann", DOWN, False, "13").vote == UP  # withdrawn: the earlier 👍 stands
    assert vote("ann", UP, False, "14").vote is None  # both withdrawn: no vote
    assert vote("carl", UP, True, "15", message_id=q.message_id) is None  # not an answer
    assert vote("the-bot", UP, True, "16") is None  # the bot does not vote on itself
    assert deps.metrics.votes.labels(surface.name, "down")._value.get() == 2  # bob, ann


def test_admin_commands_check_the_surface_and_report_through_it(kb_pool) -> None:  # type: ignore[no-untyped-def]
    from bot.jobs import JobDeps, JobQueue, run_reindex_job

    surface = FakeSurface(admins=["root"])
    deps = _deps(kb_pool, surface, None, jobs=JobQueue(kb_pool))
    place = Place(surface.name, "ws", "ops", "")
    acks: list[str | None] = []
    handle_command(deps, surface, place, user="ann", text="reindex", ack=acks.append)
    assert acks[-1] is not None
    assert "admins only" in acks[-1]
    handle_command(deps, surface, place, user="ann", text="status", ack=acks.append)
    assert acks[-1] == texts.PUBLIC_STATUS["en"]
    handle_command(deps, surface, place, user="ann", text="help", ack=acks.append)
    assert acks[-1] == texts.HELP_TEXT["en"]
    # a Chinese asker gets the same refusals and texts in Chinese
    handle_command(deps, surface, place, user="ann", text="重建索引", ack=acks.append)
    assert acks[-1] is not None
    assert "仅限 ragbot 管理员" in acks[-1]
    handle_command(deps, surface, place, user="ann", text="状态", ack=acks.append)
    assert acks[-1] == texts.PUBLIC_STATUS["zh"]
    handle_command(deps, surface, place, user="ann", text="帮助", ack=acks.append)
    assert acks[-1] == texts.HELP_TEXT["zh"]
    assert surface.notes == []

    handle_command(deps, surface, place, user="root", text="status", ack=acks.append)
    assert acks[-1] is None  # the status follows, to the admin alone
    (_, user, status), = surface.notes
    assert user == "root"
    assert f"`{KB}`" in status
    handle_command(deps, surface, place, user="root", text="reindex nope", ack=acks.append)
    assert "does not exist" in surface.notes[-1][2]
    handle_command(deps, surface, place, user="root", text=f"reindex {KB}", ack=acks.append)
    assert acks[-1] is not None
    assert f"Reindex of `{KB}` requested" in acks[-1]
    (job,) = deps.jobs.active_reindexes()
    assert job["kb"] == KB

    # the job worker reports back on the surface the command came from
    jobs = JobDeps(reindex=lambda kb, progress: {"documents": 2},
                   notifier=SurfaceNotifier({surface.name: surface}))
    run_reindex_job(jobs, kb=KB, channel="ops", user="root", surface=surface.name)
    reports = [text for p, u, text in surface.notes[-2:] if u == "root" and p.conversation == "ops"]
    assert "started" in reports[0]
    assert "finished" in reports[1]

    # in Chinese: the refusal of a second reindex, the status, and the job's reports
    handle_command(deps, surface, place, user="root", text=f"重建索引 {KB}", ack=acks.append)
    assert acks[-1] is not None
    assert f"已请求重建 `{KB}` 的索引" in acks[-1]
    assert f"`{KB}` 的重建索引已在排队" in surface.notes[-1][2]
    handle_command(deps, surface, place, user="root", text="状态", ack=acks.append)
    assert "正在重建索引" in surface.notes[-1][2] or "重建索引排队中" in surface.notes[-1][2]
    run_reindex_job(jobs, kb=KB, channel="ops", user="root", surface=surface.name, lang="zh")
    started, finished = (text for _, _, text in surface.notes[-2:])
    assert started == f"`{KB}` 的重建索引已开始。"
    assert finished.startswith(f":white_check_mark: `{KB}` 的重建索引已完成")
    assert finished.endswith("：documents=2")


def test_a_reindex_asked_in_chinese_reports_in_chinese(kb_pool) -> None:  # type: ignore[no-untyped-def]
    from bot.jobs import JobQueue

    surface = FakeSurface(admins=["root"])
    deps = _deps(kb_pool, surface, None, jobs=JobQueue(kb_pool))
    place = Place(surface.name, "ws", "ops", "")
    handle_command(deps, surface, place, user="root", text=f"重建索引 {KB}",
                   ack=lambda text: None)
    with kb_pool.connection() as conn:
        (args,), = conn.execute("SELECT args FROM procrastinate_jobs").fetchall()
    assert args["lang"] == "zh"


class _StillWriting:
    """The real agent, pausing after each verified-answer event as while a model still writes
    the rest: the offline engine finishes within the thread's next write slot, and a turn
    that ends first shows its answer as one final message (no stream to test)."""

    def __init__(self, agent: Any) -> None:
        self._agent = agent

    def __getattr__(self, name: str) -> Any:
        return getattr(self._agent, name)

    def ask(self, q: Any, on_stage: Any = None) -> Any:
        def slow(event: Any) -> None:
            on_stage(event)
            if event.answer:
                time.sleep(0.5)
        return self._agent.ask(q, on_stage=slow if on_stage else None)


def test_an_answer_streams_into_its_own_message_and_the_status_goes(kb_pool, agent) -> None:  # type: ignore[no-untyped-def]
    surface = FakeSurface(streams=True)
    deps = _deps(kb_pool, surface, _StillWriting(agent))
    q = _inbound(surface, "By when must bisque ware be dropped off?")
    turn = _run(deps, q)
    assert turn.state == "done"
    [(stream_id, texts_shown)] = surface.streamed.items()
    final = surface.messages[stream_id]
    assert final.kind == "answer"
    assert "Wednesday" in final.text
    assert final.result is not None
    # every text streamed was the verified answer so far, a prefix of the final one
    assert all(final.result.text.startswith(t) for t in texts_shown)
    assert turn.status_id not in surface.messages  # the status message was removed
    with kb_pool.connection() as conn:  # a vote on the streamed message finds the turn
        assert journal.trace_for_message(conn, surface.name, "room-1", stream_id) is not None


class _VotesWhileStreaming(FakeSurface):
    """Users react to the answer while it is still streaming, before the turn records it."""

    def __init__(self, deps: list[ConversationDeps]) -> None:
        super().__init__(streams=True)
        self._deps = deps
        self.early: list[Any] = []

    def open_answer_stream(self, place: Place, user: str, status_id: str | None,
                           text: str) -> str | None:
        stream_id = super().open_answer_stream(place, user, status_id, text)
        assert stream_id is not None
        for voter, vote, present, at in (("ann", UP, True, "1"), ("bob", DOWN, True, "2"),
                                        ("bob", DOWN, False, "3"), ("cy", DOWN, True, "4")):
            self.early.append(record_vote(
                self._deps[0], surface=self.name, conversation="room-1", message_id=stream_id,
                user=voter, vote=vote, present=present, at=Decimal(at), by_bot=voter != "cy"))
        return stream_id


def test_a_vote_on_a_streaming_answer_counts_once_it_is_recorded(kb_pool, agent) -> None:  # type: ignore[no-untyped-def]
    holder: list[ConversationDeps] = []
    surface = _VotesWhileStreaming(holder)
    deps = _deps(kb_pool, surface, _StillWriting(agent))
    holder.append(deps)
    turn = _run(deps, _inbound(surface, "When is the kiln fired?"))
    assert turn.state == "done"
    assert surface.early == [None, None, None, None]  # not an answer yet: nothing to return
    [stream_id] = surface.streamed
    with kb_pool.connection() as conn:
        votes = get_votes(conn, "room-1", stream_id)
    # ann's 👍 was held and counts; bob withdrew his; cy's came without the surface saying
    # the message is the bot's, so it was not held
    assert votes == {"ann": UP}
    assert deps.metrics.votes.labels(surface.name, "up")._value.get() == 1
    # later events follow the usual rules on the recorded answer
    assert record_vote(deps, surface=surface.name, conversation="room-1", message_id=stream_id,
                       user="ann", vote=UP, present=False, at=Decimal("5")).vote is None


def test_an_answer_whose_stream_fails_replaces_the_status_as_before(kb_pool, agent) -> None:  # type: ignore[no-untyped-def]
    surface = FakeSurface(streams=True)
    surface.fail_streams = True
    deps = _deps(kb_pool, surface, _StillWriting(agent))
    q = _inbound(surface, "By when must bisque ware be dropped off?")
    turn = _run(deps, q)
    assert surface.streamed == {}
    answers = surface.shown("answer")
    assert len(answers) == 1
    assert "Wednesday" in answers[0].text
    assert surface.writes_in(q.place.thread_key)[-1].message_id == turn.status_id
