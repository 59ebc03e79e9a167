"""Slack surface latency, end to end over HTTP with the fake Slack Web API:

- event -> ack (the HTTP answer to Slack's POST): p50/p95/p99, target p99 < 300 ms;
- event -> first status message in the thread (arrival at the fake): target p95 < 1 s;
- status writes per thread (post + updates of one message): never two within a second;
- a burst of N questions in N different threads sent at once: all answered, and how long.

The bot is the real one, run as ``ragbot serve`` runs it (Bolt app, HTTP server, Postgres
journal, agent turns in worker processes with the real agent and the offline engine over
the sample KB); only Slack's side is the fake, in a process of its own.

    python -m bench.slack_latency                       # 50 concurrent questions
    python -m bench.slack_latency --bursts 2                      # the burst twice
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
    parser.add_argument("--workers", type=int, default=None,
                        help="worker processes answering at once (default: as `ragbot "
                             "serve`, two per core up to 8)")
    parser.add_argument("--steady", type=int, default=30,
                        help="events sent one by one before the burst")
    parser.add_argument("--rate", type=float, default=2.0, help="events a second, steady phase")
    parser.add_argument("--bursts", type=int, default=1,
                        help="bursts sent one after another (each once all are answered)")
    parser.add_argument("--sender", choices=("asyncio", "threads"), default="asyncio",
                        help="how the burst is sent: one event loop (default), or one "
                             "client thread per event (the earlier harness, whose own "
                             "lock waits count in the acks)")
    parser.add_argument("--log-level", default="WARNING")
    parser.add_argument("--fresh", action="store_true",
                        help="re-create the database and re-ingest the sample KB")
    parser.add_argument("--timeout", type=float, default=600.0,
                        help="seconds to wait for every answer")
    args = parser.parse_args(argv)

    from bot.logging_setup import configure_logging

    configure_logging(args.log_level, "console")
    if args.workers is None:
        from bot.settings import Settings

        args.workers = Settings().slack_workers
    result = run(admin_url(args.database_url), args.questions, args.workers, args.timeout,
                 fresh=args.fresh, steady=args.steady, rate=args.rate,
                 bursts_n=args.bursts, sender_kind=args.sender)
    rows: list[list[Any]] = [
        ["questions per burst / workers", f"{result['questions']} / {result['workers']}", ""],
        ["burst sender", result["sender"], ""],
        ["steady stream: ack p50 ms", result["steady"]["ack_ms"]["p50"], ""],
        ["steady stream: ack p99 ms", result["steady"]["ack_ms"]["p99"], "< 300"],
    ]
    for i, b in enumerate(result["bursts"], 1):
        rows += [
            [f"burst {i}: answered", b["answered"], f"= {result['questions']}"],
            [f"burst {i}: ack p50 ms", b["ack_ms"]["p50"], ""],
            [f"burst {i}: ack p99 ms", b["ack_ms"]["p99"], "< 300"],
            [f"burst {i}: first status p50 ms", b["first_status_ms"]["p50"], ""],
            [f"burst {i}: first status p95 ms", b["first_status_ms"]["p95"], "< 1000"],
            [f"burst {i}: status writes", b["status_writes"], ""],
            [f"burst {i}: min gap between writes of one thread s", b["min_write_gap_s"],
             ">= 1.0"],
            [f"burst {i}: writes < 1 s apart", b["throttle_violations"], "0"],
            [f"burst {i}: all answered after s", b["all_answered_s"], ""],
            [f"burst {i}: answer p50 / p95 s",
             f"{b['answer_s']['p50']} / {b['answer_s']['p95']}", ""],
        ]
    print_table(["metric", "value", "target"], rows)
    path = write_results("slack_latency", result)
    print(f"results: {path}")
    ok = all(b["answered"] == result["questions"] and b["ack_ms"]["p99"] < 300
             and b["first_status_ms"]["p95"] < 1000 and b["throttle_violations"] == 0
             for b in result["bursts"]) and result["steady"]["ack_ms"]["p99"] < 300
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
                    conn.execute("TRUNCATE deliveries, turns, threads, bot_messages, workers")
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


def _start_bot(url: str, fake_url: str, workers: int) -> tuple[Any, Any, Any]:
    """The real bot over HTTP on a free port, as ``ragbot serve`` runs it (agent turns in
    ``workers`` worker processes): (pool, service, sender)."""
    from bot.settings import Settings
    from bot.slack.app import create_process_deps
    from bot.slack.service import SlackService
    from store.db import open_pool
    from tests.scenario.signed import SlackSender

    pool = open_pool(url, min_size=4, max_size=32)  # as `ragbot serve` opens it
    settings = Settings(SLACK_BOT_TOKEN="xoxb-bench",  # noqa: S106 - the fake's token
                        SLACK_SIGNING_SECRET=SECRET, SLACK_API_URL=fake_url,
                        SLACK_APP_TOKEN=None, RAGBOT_KB=KB)
    deps = create_process_deps(settings, pool=pool, database_url=url, workers=workers)
    service = SlackService(deps)
    server = service.start_http("127.0.0.1", 0)  # returns once every worker is ready
    sender = SlackSender(f"http://127.0.0.1:{server.port}/slack/events", SECRET)
    return pool, service, sender


def run(admin: str, n: int, workers: int, timeout: float, *, fresh: bool = False,
        steady: int = 30, rate: float = 2.0, bursts_n: int = 1,
        sender_kind: str = "asyncio") -> dict[str, Any]:
    url = _setup_db(admin, fresh)
    channels = [f"C0BENCH{i}" for i in range(5)]
    slack = _Slack(channels, sender_kind)
    pool, service, sender = _start_bot(url, slack.url, workers)
    try:
        # warm up every worker: search, checkpointer, caches (not measured)
        warm = [sender.mention(channels[0], f"<@UBOT> {q}") for q in QUESTIONS[:workers]]
        slack.burst(sender.url, warm)
        _wait_done(pool, [(channels[0], e["ts"]) for e in warm], 180)
        slack.reset()

        # a steady stream first: each event is acked while earlier ones are being answered
        stream = [sender.mention(ch, f"<@UBOT> {q}") for ch, q, _ in
                  zip(itertools.cycle(channels), itertools.cycle(QUESTIONS), range(steady),
                      strict=False)]
        _, steady_acks = slack.steady(sender.url, stream, rate)
        _wait_done(pool, [(e["channel"], e["ts"]) for e in stream], timeout)
        slack.reset()

        bursts = [_burst(slack, sender, pool, channels=channels, n=n, timeout=timeout)
                  for _ in range(bursts_n)]
    finally:
        service.stop()
        slack.stop()
        pool.close()

    worst = max(bursts, key=lambda b: b["ack_ms"]["p99"])
    return {
        "questions": n, "workers": workers, "worker_mode": "processes",
        "sender": sender_kind,
        "steady": {"events": steady, "rate_per_s": rate, "ack_ms": _pcts(steady_acks)},
        # the burst with the worst ack p99 (all of them under "bursts")
        **worst, "bursts": bursts,
    }


class _Slack:
    """Slack's side, in two processes of its own (Slack is other machines): the fake Web
    API, and the event sender."""

    def __init__(self, channels: list[str], sender_kind: str) -> None:
        mp = multiprocessing.get_context("spawn")
        self._api, api_end = mp.Pipe()
        self._events, events_end = mp.Pipe()
        self._procs = [
            mp.Process(target=_slack_side, args=(api_end, channels), daemon=True),
            mp.Process(target=_sender_side, args=(events_end, sender_kind), daemon=True)]
        for proc in self._procs:
            proc.start()
        self.url: str = self._api.recv()

    def burst(self, url: str, events: list[dict[str, Any]]) -> tuple[dict[str, float],
                                                                       list[float]]:
        self._events.send(("burst", url, events))
        return self._events.recv()  # type: ignore[no-any-return]

    def steady(self, url: str, events: list[dict[str, Any]],
               rate: float) -> tuple[dict[str, float], list[float]]:
        self._events.send(("steady", url, events, rate))
        return self._events.recv()  # type: ignore[no-any-return]

    def reset(self) -> None:
        self._api.send(("reset",))
        self._api.recv()

    def calls(self) -> _Recorded:
        self._api.send(("calls",))
        return _Recorded(*self._api.recv())

    def stop(self) -> None:
        for pipe in (self._api, self._events):
            pipe.send(("stop",))
        for proc in self._procs:
            proc.join(10)


def _burst(slack: _Slack, sender: Any, pool: Any, *, channels: list[str], n: int,
           timeout: float) -> dict[str, Any]:
    """Send ``n`` questions at once, each in a new thread; wait for every answer."""
    events = [sender.mention(ch, f"<@UBOT> {q}") for ch, q, _ in
              zip(itertools.cycle(channels), itertools.cycle(QUESTIONS), range(n),
                  strict=False)]
    sent_at, acks = slack.burst(sender.url, events)
    start = min(sent_at.values())
    finished = _wait_done(pool, [(e["channel"], e["ts"]) for e in events], timeout)
    all_answered_s = time.monotonic() - start
    fake = slack.calls()
    slack.reset()
    first_status, answer_s, gaps, violations, writes = _from_calls(fake, events, sent_at)
    return {
        "answered": sum(1 for state in finished.values() if state == "done"),
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
    """Slack's Web API (the fake), in its own process."""
    from tests.scenario.fake_slack import FakeSlack

    fake = FakeSlack().start()
    for ch in channels:
        fake.add_channel(ch)
    conn.send(fake.url)
    while True:
        cmd, *_ = conn.recv()
        if cmd == "reset":
            fake.reset_calls()
            conn.send(True)
        elif cmd == "calls":
            conn.send(([(c.method, c.body, c.at, c.status) for c in fake.calls()],
                       list(fake.messages())))
        else:
            fake.stop()
            return


def _sender_side(conn: Any, sender_kind: str) -> None:
    """Slack's event delivery, in a process of its own: the time it spends on its side of
    the wire (and the fake's threads) must not count as the bot's."""
    while True:
        cmd, *rest = conn.recv()
        if cmd == "burst":
            send = _send_burst_async if sender_kind == "asyncio" else _send_burst_threads
            conn.send(send(*rest))
        elif cmd == "steady":
            conn.send(_send_steady(*rest))
        else:
            return


def _send_burst_async(url: str, events: list[dict[str, Any]]) -> tuple[dict[str, float],
                                                                        list[float]]:
    """Deliver every event at once, as many machines would: all requests signed first,
    then sent on one event loop (no client thread waits for an interpreter lock before
    it can read its answer). Returns send times and ack ms."""
    import asyncio
    from urllib.parse import urlsplit

    from tests.scenario.signed import SlackSender

    sender = SlackSender(url, SECRET)
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80

    def raw(event: dict[str, Any]) -> bytes:
        body = sender.envelope(event)
        headers = {"Host": f"{host}:{port}", "Content-Length": str(len(body)),
                   "Connection": "close",
                   **sender.signed_headers(body, "application/json")}
        head = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
        return f"POST {parts.path} HTTP/1.1\r\n{head}\r\n".encode() + body

    requests = [(e["ts"], raw(e)) for e in events]
    sent_at: dict[str, float] = {}
    acks: list[float] = []

    async def one(ts: str, request: bytes) -> None:
        t0 = time.monotonic()  # CLOCK_MONOTONIC: comparable with the bot process's clock
        reader, writer = await asyncio.open_connection(host, port)
        writer.write(request)
        await writer.drain()
        status_line = await reader.readline()  # the ack has arrived
        elapsed = time.monotonic() - t0
        await reader.read()
        writer.close()
        sent_at[ts] = t0
        ok = status_line.split()[1:2] == [b"200"]
        acks.append(elapsed * 1000 if ok else 1e9)

    async def main() -> None:
        await asyncio.gather(*(one(ts, request) for ts, request in requests))

    asyncio.run(main())
    return sent_at, acks


def _send_burst_threads(url: str, events: list[dict[str, Any]]) -> tuple[dict[str, float],
                                                                          list[float]]:
    """Deliver every event at once, one client thread each (the earlier harness: its
    threads' own wait for the interpreter lock counts in the ack times)."""
    from tests.scenario.signed import SlackSender

    sender = SlackSender(url, SECRET)
    sent_at: dict[str, float] = {}
    acks: list[float] = []
    lock = threading.Lock()
    barrier = threading.Barrier(len(events))

    def send(event: dict[str, Any]) -> None:
        barrier.wait()
        t0 = time.monotonic()
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
                "SELECT message_id, state FROM turns WHERE message_id = ANY(%s)",
                [[ts for _, ts in keys]]).fetchall()
        states = {r[0]: r[1] for r in rows}
        if len(states) == len(keys) and all(s in ("done", "failed") for s in states.values()):
            break
        time.sleep(0.2)
    return states


if __name__ == "__main__":
    raise SystemExit(main())
