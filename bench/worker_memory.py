"""Memory of one answering worker per embedding backend: a fresh process builds exactly what
a ``ragbot serve`` turn worker builds (``bot.conversations.worker.init_worker``: pool,
embedder on one thread, agent, warm-up, Slack dependencies), then answers the sample
questions with that worker's agent. Target with onnx-int8: at most 350 MB.

    python -m bench.worker_memory                        # torch, onnx, onnx-int8
    python -m bench.worker_memory --backends onnx-int8 --passes 3 --home DIR

Reported per backend: resident memory (VmRSS) once the worker is ready and after the
answers, and its peak (VmHWM: this process's own, which ``ru_maxrss`` is not after a
spawn from a large parent). The PostgreSQL server's memory is not counted. ``--home`` is
the RAGBOT_HOME of the workers (ONNX export, parsed dictionary).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.answer_latency import QUESTIONS
from bench.cli_start import ROOT, SAMPLES, run_cli
from bench.common import (
    add_database_args,
    admin_url,
    drop_database,
    fresh_database,
    print_table,
    write_results,
)

BACKENDS = ("torch", "onnx", "onnx-int8")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.worker_memory",
                                     description=(__doc__ or "").split("\n\n")[0])
    add_database_args(parser)
    parser.add_argument("--backends", default=",".join(BACKENDS))
    parser.add_argument("--passes", type=int, default=2, help="passes over the questions")
    parser.add_argument("--home", type=Path,
                        default=Path(os.environ.get("RAGBOT_HOME", "~/.ragbot")).expanduser())
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(_child(args.child, args.url, args.home, args.passes)))
        return 0
    admin = admin_url(args.database_url)
    url = fresh_database(admin, "worker_memory")
    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    figures: dict[str, Any] = {}
    try:
        for backend in backends:
            env = {**os.environ, "DATABASE_URL": url, "RAGBOT_HOME": str(args.home),
                   "RAGBOT_EMBED_BACKEND": backend, "RAGBOT_LOG_LEVEL": "WARNING",
                   "PYTHONPATH": str(ROOT)}
            run_cli(env, ["ingest", str(SAMPLES), "--kb", _kb(backend)])
            out = subprocess.run(  # noqa: S603 - our interpreter, our module
                [sys.executable, "-m", "bench.worker_memory", "--child", backend, "--url", url,
                 "--home", str(args.home), "--passes", str(args.passes)],
                env=env, cwd=ROOT, capture_output=True, text=True, check=True)
            figures[backend] = json.loads(out.stdout.strip().splitlines()[-1])
    finally:
        drop_database(admin, url)
    print_table(["backend", "ready MB", "after answers MB", "peak MB", "answers", "torch"],
                [[b, f["ready_rss_mb"], f["rss_mb"], f["peak_rss_mb"], f["answers"],
                  f["torch_imported"]] for b, f in figures.items()])
    result = {"passes": args.passes, "questions": len(QUESTIONS), "backends": figures,
              "loadavg_after": round(os.getloadavg()[0], 2)}
    print(f"results: {write_results('worker_memory', result)}")
    return 0


def _kb(backend: str) -> str:
    return f"memory-{backend}"


def _child(backend: str, url: str, home: Path, passes: int) -> dict[str, Any]:
    from agent.api import Question
    from bot.conversations import worker
    from bot.conversations.pacing import SharedPacer
    from bot.settings import Settings
    from bot.slack.app import worker_deps

    settings = Settings(home=home, embed_backend=backend, default_kb=_kb(backend),
                        answer_cache=False)
    worker.init_worker(worker.WorkerConfig(settings=settings, database_url=url,
                                           instance_id="bench", pacer=SharedPacer(),
                                           deps_factory=worker_deps,
                                           log_level="WARNING", niceness=0))
    ready = _status("VmRSS")
    agent = worker._RUNNER["runner"].deps.agent  # the worker's own agent
    started = time.perf_counter()
    answers = 0
    for p in range(max(1, passes)):
        thread = ""
        for i, (text, follows) in enumerate(QUESTIONS):
            thread = thread if follows else f"bench:{p}:{i}"
            agent.ask(Question(text=text, thread_id=thread, kb=_kb(backend)))
            answers += 1
    return {"ready_rss_mb": round(ready), "rss_mb": round(_status("VmRSS")),
            "peak_rss_mb": round(_status("VmHWM")), "answers": answers,
            "answer_s": round(time.perf_counter() - started, 1),
            "torch_imported": "torch" in sys.modules}


def _status(field: str) -> float:
    """A /proc/self/status figure in MB."""
    for line in Path("/proc/self/status").read_text(encoding="utf-8").splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"/proc/self/status has no {field}")


if __name__ == "__main__":
    raise SystemExit(main())
