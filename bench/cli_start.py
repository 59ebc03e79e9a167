"""Wall time of one-shot commands, each in a fresh process as a user runs them: ``ragbot kb
status``, ``search`` and ``ask`` (answer cache off, so every ask is answered), per embedding
backend, on the sample knowledge base. Target: each under 3 s.

    python -m bench.cli_start                         # torch and onnx-int8, 3 runs each
    python -m bench.cli_start --backends onnx-int8 --runs 5 --home DIR

Each backend gets its own KB in a fresh benchmark database (samples/kb ingested once, not
timed); ``--home`` is the RAGBOT_HOME of the commands (where the ONNX export and the parsed
dictionary are kept; made there by a first, untimed ask). Reported per command: median and
slowest wall time, median CPU time (user + system: what the command itself costs, however
busy the machine), peak RSS, and the load average around the runs.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.common import (
    add_database_args,
    admin_url,
    drop_database,
    fresh_database,
    print_table,
    write_results,
)
from bot.logging_setup import configure_logging

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples" / "kb"
# Original questions about the sample KB, one Chinese and one English.
QUESTIONS = ("How do I request annual leave?", "Redis内存满了怎么办")
COMMANDS: dict[str, list[str]] = {
    "kb status": ["kb", "status", "{kb}"],
    "search": ["search", QUESTIONS[1], "--kb", "{kb}"],
    "ask": ["ask", QUESTIONS[0], "--kb", "{kb}"],
}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.cli_start",
                                     description=(__doc__ or "").split("\n\n")[0])
    add_database_args(parser)
    parser.add_argument("--backends", default="torch,onnx-int8")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--home", type=Path,
                        default=Path(os.environ.get("RAGBOT_HOME", "~/.ragbot")).expanduser())
    args = parser.parse_args(argv)
    configure_logging("WARNING")
    admin = admin_url(args.database_url)
    url = fresh_database(admin, "cli_start")
    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    rows: list[list[Any]] = []
    result: dict[str, Any] = {"runs": args.runs, "backends": {}}
    try:
        load_before = os.getloadavg()[0]
        for backend in backends:
            env = {**os.environ, "DATABASE_URL": url, "RAGBOT_HOME": str(args.home),
                   "RAGBOT_EMBED_BACKEND": backend, "RAGBOT_ANSWER_CACHE": "off",
                   "RAGBOT_LOG_LEVEL": "WARNING", "PYTHONPATH": str(ROOT)}
            kb = f"start-{backend}"
            run_cli(env, ["ingest", str(SAMPLES), "--kb", kb])
            run_cli(env, ["ask", QUESTIONS[1], "--kb", kb])  # exports / parses what is kept
            figures: dict[str, Any] = {}
            for name, template in COMMANDS.items():
                runs = [run_cli(env, [a.format(kb=kb) for a in template])
                        for _ in range(max(1, args.runs))]
                walls = [r["wall_s"] for r in runs]
                figures[name] = {
                    "wall_s_median": round(statistics.median(walls), 2),
                    "wall_s_max": round(max(walls), 2),
                    "cpu_s_median": round(statistics.median(r["cpu_s"] for r in runs), 2),
                    "rss_mb": round(max(r["rss_mb"] for r in runs)),
                    "wall_s": [round(w, 2) for w in walls]}
                rows.append([backend, name, figures[name]["wall_s_median"],
                             figures[name]["wall_s_max"], figures[name]["cpu_s_median"],
                             figures[name]["rss_mb"]])
            result["backends"][backend] = figures
        result["loadavg_before_after"] = [round(load_before, 2), round(os.getloadavg()[0], 2)]
    finally:
        drop_database(admin, url)
    print_table(["backend", "command", "wall s p50", "wall s max", "CPU s", "RSS MB"], rows)
    print(f"load average (1 min) before / after: {result['loadavg_before_after']}")
    print(f"results: {write_results('cli_start', result)}")
    return 0


def run_cli(env: dict[str, str], argv: list[str]) -> dict[str, float]:
    """Run ``ragbot ARGV`` in a fresh interpreter; its wall time, CPU time and peak RSS
    (from wait4: this child's own usage, not the benchmark's)."""
    started = time.perf_counter()
    proc = subprocess.Popen(  # noqa: S603 - our interpreter, our command line
        [sys.executable, "-c", "import sys; from bot.cli import main; sys.exit(main())", *argv],
        env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"ragbot {' '.join(argv)} failed ({proc.returncode}): "
                         f"{err.decode(errors='replace')[-1000:]}")
    return {"wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime,
            "rss_mb": usage.ru_maxrss / 1024}


if __name__ == "__main__":
    raise SystemExit(main())
