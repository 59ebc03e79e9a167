"""``ragbot trace ID``: the path of one answered turn, node by node."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bot.context import AppContext


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("trace", help="show how one answer was produced (by trace id)")
    parser.add_argument("trace_id", nargs="?", help="the trace id printed by ask/chat/Slack")
    parser.add_argument("--thread", default=None, help="list the recent traces of a thread")
    parser.add_argument("--json", action="store_true", help="print the stored record as JSON")
    parser.set_defaults(handler=handle)


def _short(value: Any, limit: int = 160) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def render(trace: dict[str, Any]) -> str:
    """A readable walk through the turn: question, each node's snapshot, the answer."""
    lines = [
        f"trace {trace['trace_id']}  thread {trace.get('thread_id')}  kb {trace.get('kb')}  "
        f"{trace.get('created_at', '')}",
        f"question: {trace.get('question')}",
        f"rewrite:  {trace.get('rewritten_query')}",
        f"route: {trace.get('route')}  rounds: {trace.get('rounds')}  "
        f"refused: {trace.get('refused')}  latency: {trace.get('latency_ms')} ms",
        "",
    ]
    if trace.get("kbs_searched"):
        shares = ", ".join(f"{k} {v:.2f}" for k, v in (trace.get("kb_shares") or {}).items())
        lines[-1:-1] = [f"knowledge bases: {', '.join(trace['kbs_searched'])} — "
                        f"{trace.get('kb_reason')}" + (f" (shares: {shares})" if shares else "")]
    for i, step in enumerate(trace.get("steps") or [], start=1):
        lines.append(f"{i:>2}. {step['node']:<10} {step.get('ms', 0):>8.1f} ms")
        lines.append(f"      in : {_short(step.get('input'))}")
        lines.append(f"      out: {_short(step.get('output'))}")
    for s in trace.get("searches") or []:
        bridge = f" (bridge: {s['bridge_entity']})" if s.get("bridge_entity") else ""
        lines.append(f"search r{s['round']} {s['id']}: {s['query']}{bridge} -> "
                     f"chunks {s['chunk_ids'][:10]}")
    lines += ["", "answer:", str(trace.get("answer", ""))]
    for c in trace.get("citations") or []:
        kb = f" [{c['kb']}]" if c.get("kb") else ""
        lines.append(f"[{c['n']}] {c['title']}{kb} — {c['source']} (chunks {c['chunk_ids']})")
    return "\n".join(lines)


def handle(args: argparse.Namespace, ctx: AppContext) -> int:
    from store.traces import get_trace, recent_traces

    with ctx.pool.connection() as conn:
        if args.trace_id is None:
            rows = recent_traces(conn, args.thread)
            for r in rows:
                print(f"{r['trace_id']}  {r['created_at']:%Y-%m-%d %H:%M:%S}  {r['route']:<16} "
                      f"{r['question']}")
            if not rows:
                print("no traces yet; ask something with `ragbot ask`")
            return 0
        trace = get_trace(conn, args.trace_id)
    if trace is None:
        print(f"error: no trace {args.trace_id!r}; list recent ones with `ragbot trace`")
        return 2
    print(json.dumps(trace, ensure_ascii=False, indent=2, default=str) if args.json
          else render(trace))
    return 0
