"""Slack surface latency, end to end over HTTP with the fake Slack Web API:

- event -> ack (the HTTP answer to Slack's POST): p50/p95/p99, target p99 < 300 ms;
- event -> first status message in the thread (arrival at the fake): target p95 < 1 s;
- status writes per thread (post + updates of one message): never two within a second;
- a burst of N questions in N different threads sent at once: all answered, and how long.

The bot is the real one (Bolt app, HTTP server, Postgres journal, the real agent with the
offline engine over the sample KB); only Slack's side is the fake.

    python -m bench.slack_latency                       # 50 concurrent questions
    python -m bench.slack_latency --questions 100 --workers 4 --steady 60 --rate 5
"""

from __future__ import annotations

import argparse
import itertools
import multiprocessing
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from bench.common import (
    add_database_args,
    admin_url,
    fresh_database,
    percentile,
    print_table,
    write_results,
)

SECRET = "bench-signing-secret"  # noqa: S105 - signs requests to a local test server
KB = "samples"
SAMPLES = Path(__file__).resolve().parents[1] / "samples" / "kb"
QUESTIONS = (
    "Which product line had the highest return rate in Q3 2026?",
    "Redis内存满了怎么办",
    "How do I deploy to production?",
    "What must a new supplier provide?",
    "服务器频繁告警时该参考哪个应急预案？",
    "How many days of annual leave do employees get?",
    "MySQL慢查询怎么排查？",
    "What should I do if a pod is in CrashLoopBackOff?",
)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_database_args(parser)
    parser.add_argument("--questions", type=int, default=50,
                        help="questions sent at once, each in its own thread")
    parser.add_argument("--workers", type=int, default=4, help="agent turns run at once")
    parser.add_argument("--steady", type=int, default=30,
                        help="events sent one by one before the burst")
    parser.add_argument("--rate", type=float, default=2.0, help="events a second, steady phase")
    parser.add_argument("--log-level", default="WARNING")
    parser.add_argument("--fresh", action="store_true",
                        help="re-create the database and re-ingest the sample KB")
    parser.add_argument("--timeout", type=float, default=600.0,
                        help="seconds to wait for every answer")
    args = parser.parse_args(argv)

    from bot.logging_setup import configure_logging

    configure_logging(args.log_level, "console")
    result = run(admin_url(args.database_url), args.questions, args.workers, args.timeout,
                 fresh=args.fresh, steady=args.steady, rate=args.rate)
    print_table(["metric", "value", "target"], [
        ["questions", result["questions"], ""],
        ["answered", result["answered"], f"= {result['questions']}"],
        ["steady stream: ack p50 ms", result["steady"]["ack_ms"]["p50"], ""],
        ["steady stream: ack p99 ms", result["steady"]["ack_ms"]["p99"], "< 300"],
        ["burst: ack p50 ms", result["ack_ms"]["p50"], ""],
        ["burst: ack p99 ms", result["ack_ms"]["p99"], "< 300"],
        ["burst: first status p50 ms", result["first_status_ms"]["p50"], ""],
        ["burst: first status p95 ms", result["first_status_ms"]["p95"], "< 1000"],
        ["status writes", result["status_writes"], ""],
        ["min gap between writes of one thread s", result["min_write_gap_s"], ">= 1.0"],
        ["writes < 1 s apart", result["throttle_violations"], "0"],
        ["all answered after s", result["all_answered_s"], ""],
        ["answer p50 / p95 s", f"{result['answer_s']['p50']} / {result['answer_s']['p95']}",
         ""],
    ])
    path = write_results("slack_latency", result)
    print(f"results: {path}")
    ok = (result["answered"] == result["questions"] and result["ack_ms"]["p99"] < 300
          and result["first_status_ms"]["p95"] < 1000 and result["throttle_violations"] == 0)
    return 0 if ok else 1


def _setup_db(admin: str, fresh: bool) -> str:
    """The benchmark database with the sample KB; an earlier run's KB is reused (only the
    Slack state and thread memory are cleared) unless ``fresh``."""
    import psycopg
    from psycopg.conninfo import make_conninfo

    from store.db import open_pool
    from store.embedding import load_embedder
    from store.ingest import ingest_paths
    from store.kb import find_kb

    url = make_conninfo(admin, dbname="ragbot_bench_slack")
    if not fresh:
        try:
            with psycopg.connect(url, autocommit=True) as conn:
                if find_kb(conn, KB) is not None:
                    conn.execute("TRUNCATE slack_events, slack_turns, slack_threads, "
                                 "slack_bot_messages, slack_workers")
                    return url
        except psycopg.Error:
            pass  # no such database yet
    url = fresh_database(admin, "slack")
    pool = open_pool(url, max_size=2)
    try:
        ingest_paths(pool, KB, [SAMPLES], embedder=load_embedder())
    finally:
        pool.close()
    return url


def _start_bot(url: str, fake_url: str, workers: int) -> tuple[Any, Any, Any, Any]:
    """The real bot over HTTP on a free port: (pool, agent, service, sender)."""
    from agent.api import build_agent
    from bot.settings import Settings
    from bot.slack.app import create_deps
    from bot.slack.service import SlackService
    from store.db import open_pool
    from store.embedding import load_embedder, serving_threads
    from tests.scenario.signed import SlackSender

    serving_threads()  # as `ragbot serve` does
    pool = open_pool(url, max_size=workers * 2 + 12)
    embedder = load_embedder()
    agent = build_agent(pool, embedder)
    settings = Settings(SLACK_BOT_TOKEN="xoxb-bench",  # noqa: S106 - the fake's token
                        SLACK_SIGNING_SECRET=SECRET, SLACK_API_URL=fake_url,
                        SLACK_APP_TOKEN=None, RAGBOT_KB=KB)
    deps = create_deps(settings, pool=pool, agent=agent, embedder=embedder,
                       work_workers=workers)
    service = SlackService(deps)
    server = service.start_http("127.0.0.1", 0)
    sender = SlackSender(f"http://127.0.0.1:{server.port}/slack/events", SECRET)
    return pool, agent, service, sender


def run(admin: str, n: int, workers: int, timeout: float, *, fresh: bool = False,
        steady: int = 30, rate: float = 2.0) -> dict[str, Any]:
    url = _setup_db(admin, fresh)
    channels = [f"C0BENCH{i}" for i in range(5)]
    # Slack is another machine: its fake Web API and the event sender run in another
    # process, so they do not compete with the bot for this interpreter's lock
    mp = multiprocessing.get_context("spawn")
    here, there = mp.Pipe()
    slack = mp.Process(target=_slack_side, args=(there, channels), daemon=True)
    slack.start()
    pool, agent, service, sender = _start_bot(url, here.recv(), workers)
    try:
        # warm up: model, search, checkpointer tables (not measured)
        warm = sender.mention(channels[0], f"<@UBOT> {QUESTIONS[0]}")
        here.send(("burst", sender.url, [warm]))
        here.recv()
        _wait_done(pool, [(channels[0], warm["ts"])], 120)
        here.send(("reset",))
        here.recv()

        # a steady stream first: each event is acked while earlier ones are being answered
        stream = [sender.mention(ch, f"<@UBOT> {q}") for ch, q, _ in
                  zip(itertools.cycle(channels), itertools.cycle(QUESTIONS), range(steady),
                      strict=False)]
        here.send(("steady", sender.url, stream, rate))
        _, steady_acks = here.recv()
        _wait_done(pool, [(e["channel"], e["ts"]) for e in stream], timeout)
        here.send(("reset",))
        here.recv()

        events = [sender.mention(ch, f"<@UBOT> {q}") for ch, q, _ in
                  zip(itertools.cycle(channels), itertools.cycle(QUESTIONS), range(n),
                      strict=False)]
        here.send(("burst", sender.url, events))
        sent_at, acks = here.recv()
        start = min(sent_at.values())
        finished = _wait_done(pool, [(e["channel"], e["ts"]) for e in events], timeout)
        all_answered_s = time.monotonic() - start
        here.send(("calls",))
        fake = _Recorded(*here.recv())
    finally:
        service.stop()
        agent.close()
        here.send(("stop",))
        slack.join(10)
        pool.close()

    first_status, answer_s, gaps, violations, writes = _from_calls(fake, events, sent_at)
    return {
        "questions": n, "workers": workers,
        "answered": sum(1 for state in finished.values() if state == "done"),
        "steady": {"events": steady, "rate_per_s": rate, "ack_ms": _pcts(steady_acks)},
        "ack_ms": _pcts(acks), "first_status_ms": _pcts(first_status),
        "answer_s": {k: round(v / 1000, 2) for k, v in _pcts(answer_s).items()},
        "status_writes": writes,
        "min_write_gap_s": round(min(gaps), 3) if gaps else None,
        "throttle_violations": violations,
        "all_answered_s": round(all_answered_s, 2),
    }


class _Recorded:
    """What the fake Slack recorded, shipped back from its process."""

    def __init__(self, calls: list[tuple[str, dict[str, Any], float, int]],
                 messages: list[dict[str, Any]]) -> None:
        self._calls = [SimpleNamespace(method=m, body=b, at=at, status=st)
                       for m, b, at, st in calls]
        self._messages = messages

    def ok_calls(self, method: str) -> list[Any]:
        return [c for c in self._calls if c.method == method and c.status == 200]

    def messages(self, channel: str) -> list[dict[str, Any]]:
        return [m for m in self._messages if m.get("channel") == channel]


def _slack_side(conn: Any, channels: list[str]) -> None:
    """The Slack side, in its own process: the fake Web API and the event sender."""
    from tests.scenario.fake_slack import FakeSlack

    fake = FakeSlack().start()
    for ch in channels:
        fake.add_channel(ch)
    conn.send(fake.url)
    while True:
        cmd, *rest = conn.recv()
        if cmd == "burst":
            conn.send(_send_burst(*rest))
        elif cmd == "steady":
            conn.send(_send_steady(*rest))
        elif cmd == "reset":
            fake.reset_calls()
            conn.send(True)
        elif cmd == "calls":
            conn.send(([(c.method, c.body, c.at, c.status) for c in fake.calls()],
                       list(fake.messages())))
        else:
            fake.stop()
            return


def _send_burst(url: str, events: list[dict[str, Any]]) -> tuple[dict[str, float],
                                                                  list[float]]:
    """Deliver every event at once (one thread each); return send times and ack ms."""
    from tests.scenario.signed import SlackSender

    sender = SlackSender(url, SECRET)
    sent_at: dict[str, float] = {}
    acks: list[float] = []
    lock = threading.Lock()
    barrier = threading.Barrier(len(events))

    def send(event: dict[str, Any]) -> None:
        barrier.wait()
        t0 = time.monotonic()  # CLOCK_MONOTONIC: comparable with the bot process's clock
        delivery = sender.event(event)
        with lock:
            sent_at[event["ts"]] = t0
            acks.append(delivery.elapsed_s * 1000 if delivery.status == 200 else 1e9)

    threads = [threading.Thread(target=send, args=(e,)) for e in events]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sent_at, acks


def _send_steady(url: str, events: list[dict[str, Any]],
                 rate: float) -> tuple[dict[str, float], list[float]]:
    """Deliver the events one after another at ``rate`` per second."""
    from tests.scenario.signed import SlackSender

    sender = SlackSender(url, SECRET)
    sent_at: dict[str, float] = {}
    acks: list[float] = []
    for i, event in enumerate(events):
        start = time.monotonic()
        sent_at[event["ts"]] = start
        delivery = sender.event(event)
        acks.append(delivery.elapsed_s * 1000 if delivery.status == 200 else 1e9)
        time.sleep(max(0.0, (i + 1) / rate - (time.monotonic() - min(sent_at.values()))))
    return sent_at, acks


def _pcts(values: Sequence[float]) -> dict[str, float]:
    return {f"p{q}": round(percentile(values, q), 1) for q in (50, 95, 99)} | {
        "max": round(max(values), 1)}


def _from_calls(fake: Any, events: list[dict[str, Any]],
                sent_at: dict[str, float]) -> tuple[list[float], list[float], list[float],
                                                    int, int]:
    """First status and answer times per thread, and the gaps between writes of one
    status message, from what the fake recorded."""
    posts = fake.ok_calls("chat.postMessage")
    updates = fake.ok_calls("chat.update")
    first_status: list[float] = []
    answer_s: list[float] = []
    gaps: list[float] = []
    violations = 0
    writes = 0
    for event in events:
        mine = sorted((c for c in posts if c.body.get("thread_ts") == event["ts"]),
                      key=lambda c: c.at)
        if not mine:
            continue
        t0 = sent_at[event["ts"]]
        first_status.append((mine[0].at - t0) * 1000)
        ts = _posted_ts(fake, event["channel"], event["ts"])
        times = sorted([c.at for c in mine] + [
            c.at for c in updates
            if c.body.get("ts") == ts and c.body.get("channel") == event["channel"]])
        writes += len(times)
        answer_s.append((times[-1] - t0) * 1000)
        for a, b in itertools.pairwise(times):
            gaps.append(b - a)
            violations += b - a < 1.0
    return first_status, answer_s, gaps, violations, writes


def _posted_ts(fake: Any, channel: str, thread_ts: str) -> str | None:
    """The ts of the bot's (first) message in a thread: the status message."""
    ours = sorted(str(m["ts"]) for m in fake.messages(channel) if m.get("thread_ts") == thread_ts)
    return ours[0] if ours else None


def _wait_done(pool: Any, keys: list[tuple[str, str]], timeout: float) -> dict[str, str]:
    """Poll the journal until every (channel, ts) turn is finished (or the timeout)."""
    deadline = time.monotonic() + timeout
    states: dict[str, str] = {}
    while time.monotonic() < deadline:
        with pool.connection() as conn:
            rows = conn.execute(
                "SELECT message_ts, state FROM slack_turns WHERE message_ts = ANY(%s)",
                [[ts for _, ts in keys]]).fetchall()
        states = {r[0]: r[1] for r in rows}
        if len(states) == len(keys) and all(s in ("done", "failed") for s in states.values()):
            break
        time.sleep(0.2)
    return states


if __name__ == "__main__":
    raise SystemExit(main())
