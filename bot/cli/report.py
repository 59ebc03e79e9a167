"""``ragbot report --out report.html``: eval history and feedback as one page."""

from __future__ import annotations

import argparse
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bot.context import AppContext


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "report", help="eval history and 👍/👎 feedback as one self-contained HTML page",
        description="Write one HTML page (inline SVG charts, nothing loaded from the network): "
        "answer accuracy, refusal and false-refusal rates per eval set and per tag over the "
        "recorded `ragbot eval` runs, latency percentiles, 👍/👎 per week and per channel, "
        "and the latest 👎 answers with their traces.")
    parser.add_argument("--out", type=Path, required=True, metavar="report.html")
    parser.add_argument("--runs", type=int, default=30, metavar="N",
                        help="the last N runs of each set (default 30)")
    parser.add_argument("--down", type=int, default=10, metavar="N",
                        help="how many of the latest 👎 answers to list (default 10)")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace, ctx: AppContext) -> int:
    from bot.report.data import latest_down_votes, set_histories, votes_by
    from bot.report.page import render
    from store.eval_runs import list_runs
    from store.feedback import answers_with_votes

    with ctx.pool.connection() as conn:
        runs = list_runs(conn, last=max(1, args.runs))
        votes = answers_with_votes(conn)
    page = render(generated=datetime.now(UTC), histories=set_histories(runs),
                  weeks=votes_by(votes, "week"), channels=votes_by(votes, "channel"),
                  down_votes=latest_down_votes(votes, max(0, args.down)))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    tmp = args.out.with_name(args.out.name + ".tmp")
    tmp.write_text(page, encoding="utf-8")
    tmp.replace(args.out)  # never a half-written report
    print(f"{len(runs)} eval runs, {len(votes)} answers with feedback -> {args.out}")
    return 0
