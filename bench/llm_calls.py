"""Model calls per question by route, for the LLM engine, against the scripted
OpenAI-compatible server the tests use (a real HTTP server; no model, no network).

    python -m bench.llm_calls                  # the sample questions on samples/kb

The scripted model routes as the offline rule does, rewrites nothing, calls the first round's
passages sufficient, and answers by quoting the opening sentences (up to three) of its best
passage (``--add-words`` adds a clause the passage does not hold to the last one, so the
offline rule cannot find that sentence and verify asks the model). Reported per route:
questions, calls per question (mean and most), and the calls by step. The server streams
its replies as a model writing (``--chars-per-s``, in 8-character pieces), and each answer's
time to its first verified sentence (the first ``answer`` event a surface could show) is
reported beside the time to the whole answer, median per route, for the answers that showed
one before the end.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from langchain_openai import ChatOpenAI
from pydantic import SecretStr

from agent import llm_prompts as prompts
from bench.answer_latency import QUESTIONS
from bench.cli_start import SAMPLES
from bench.common import (
    add_database_args,
    admin_url,
    bench_pool,
    drop_database,
    fresh_database,
    print_table,
    write_results,
)
from bot.logging_setup import configure_logging
from tests.fakes.openai_server import FakeOpenAI

STEPS = {text: name.lower() for name, text in vars(prompts).items()
         if name.isupper() and isinstance(text, str)}
KB = "calls"
_CJK = re.compile(r"[\u3400-\u9fff]")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.llm_calls",
                                     description=(__doc__ or "").split("\n\n")[0])
    add_database_args(parser)
    parser.add_argument("--add-words", action="store_true",
                        help="the model adds words to what it quotes (verify asks the model)")
    parser.add_argument("--chars-per-s", type=float, default=160.0,
                        help="how fast the scripted model writes (default 160, about 40 "
                        "tokens a second)")
    parser.add_argument("--home", type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    configure_logging("WARNING")
    from agent.api import Question, build_agent
    from agent.engine import OfflineEngine
    from agent.llm import LLMEngine
    from store.embedding import load_embedder
    from store.ingest import ingest_paths

    admin = admin_url(args.database_url)
    url = fresh_database(admin, "llm_calls")
    fake = FakeOpenAI().start()
    fake.respond_with(lambda body: _reply(body, add_words=args.add_words))
    fake.chunk_chars, fake.chunk_delay_s = 8, 8 / args.chars_per_s
    per_route: dict[str, list[int]] = defaultdict(list)
    timing: dict[str, list[tuple[float, float]]] = defaultdict(list)  # (first, total) s
    steps: dict[str, Counter[str]] = defaultdict(Counter)
    try:
        pool = bench_pool(url, auto_prepare=True, max_size=4)
        embedder = load_embedder()
        ingest_paths(pool, KB, [SAMPLES], embedder=embedder)
        chat = ChatOpenAI(base_url=fake.base_url, model="scripted", api_key=SecretStr("k"),
                          timeout=10, max_retries=0)
        agent = build_agent(pool, embedder, engine=LLMEngine(chat, fallback=OfflineEngine()))
        thread = ""
        for i, (text, follows) in enumerate(QUESTIONS):
            thread = thread if follows else f"calls:{i}"
            before = len(fake.requests)
            shown: list[float] = []
            started = time.perf_counter()
            result = agent.ask(Question(text=text, thread_id=thread, kb=KB),
                               on_stage=lambda e, shown=shown: e.answer and shown.append(
                                   time.perf_counter()))
            total = time.perf_counter() - started
            if shown:
                timing[result.route].append((shown[0] - started, total))
            made = [STEPS.get(r["messages"][0]["content"], "?") for r in fake.requests[before:]]
            per_route[result.route].append(len(made))
            steps[result.route].update(made)
        agent.close()
        pool.close()
    finally:
        fake.close()
        drop_database(admin, url)
    rows = [[route, len(calls), statistics.mean(calls), max(calls),
             ", ".join(f"{s} {n}" for s, n in sorted(steps[route].items()))]
            for route, calls in sorted(per_route.items())]
    print_table(["route", "questions", "calls/question", "most", "calls by step"], rows)
    streamed = {r: {"answers": len(t),
                    "first_sentence_s_p50": round(statistics.median(f for f, _ in t), 3),
                    "total_s_p50": round(statistics.median(x for _, x in t), 3)}
                for r, t in sorted(timing.items())}
    print_table(["route", "answers shown early", "first verified sentence s (p50)",
                 "whole answer s (p50)"],
                [[r, v["answers"], v["first_sentence_s_p50"], v["total_s_p50"]]
                 for r, v in streamed.items()])
    result = {"add_words": args.add_words, "questions": len(QUESTIONS),
              "chars_per_s": args.chars_per_s, "streamed": streamed,
              "routes": {r: {"questions": len(c), "calls_mean": round(statistics.mean(c), 2),
                             "calls_max": max(c), "steps": dict(steps[r])}
                         for r, c in per_route.items()}}
    print(f"results: {write_results('llm_calls', result)}")
    return 0


def _reply(body: dict[str, Any], *, add_words: bool) -> dict[str, Any]:  # noqa: PLR0911 - one reply per step
    """What the scripted model answers to each step's prompt."""
    from agent.engine import OfflineEngine

    step = STEPS.get(body["messages"][0]["content"])
    payload = json.loads(body["messages"][1]["content"])
    if step == "understand":
        return {"query": payload["question"], "is_followup": bool(payload["history"])}
    if step == "route":
        facets = {**payload["facets"], "sources": []}
        decision = OfflineEngine().route({"question": payload["question"],
                                          "understanding": payload["understanding"],
                                          "facets": facets})
        return {"route": decision["route"], "reason": "as the rule"}
    if step == "plan":
        return {"sub_questions": [{"id": "q1", "query": payload["understanding"]["query"]}]}
    if step == "bridge":
        return {"query": payload["sub_question"]}
    if step in ("evaluate", "evaluate_strict"):
        return {"sufficient": True, "certain": True, "reason": "scripted"}
    if step == "generate":
        # the best passage in the question's language (an answer in another is refused)
        chinese = bool(_CJK.search(payload["question"]))
        best = next((p for p in payload["passages"] if bool(_CJK.search(p["text"])) == chinese),
                    payload["passages"][0])
        quoted = [q[:200] for q in re.split(r"(?<=[。.!?！？])\s*", best["text"].strip())
                  if q.strip()][:3]
        if add_words:  # the last sentence says more than its passage
            quoted[-1] += ("，通常在两个工作日内由部门经理确认完成。" if chinese
                           else " Usually a department manager confirms within two working days.")
        return {"refused": False,
                "sentences": [{"text": q, "cites": [best["n"]]} for q in quoted]}
    if step == "verify":
        return {"supported": True, "reason": "scripted"}
    return {}


if __name__ == "__main__":
    raise SystemExit(main())
