"""What an eval run records in its history: the code commit and the settings that shape it."""

from __future__ import annotations

import argparse
import subprocess
from pathlib import Path
from typing import Any

from bot.settings import Settings

_ROOT = Path(__file__).resolve().parents[2]


def code_commit(root: Path = _ROOT) -> str | None:
    """The git commit of the running code (with ``+dirty`` for local changes); None outside
    a git checkout (an installed wheel, a container without .git)."""
    try:
        # fixed arguments, our own checkout: nothing here comes from input
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"],  # noqa: S603,S607
                              capture_output=True, text=True, timeout=10, check=True)
        dirty = subprocess.run(  # noqa: S603
            ["git", "-C", str(root), "status", "--porcelain",  # noqa: S607
             "--untracked-files=no"], capture_output=True, text=True, timeout=10, check=True)
    except (OSError, subprocess.SubprocessError):
        return None
    return head.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")


def run_settings(args: argparse.Namespace, settings: Settings) -> dict[str, Any]:
    """The options of ``ragbot eval`` and the settings that change its figures."""
    return {
        "mode": "retrieval" if args.retrieval_only else "full",
        "engine": settings.engine,
        "llm_model": settings.llm_model if settings.engine == "llm" else None,
        "embed_model": settings.embed_model,
        "max_rounds": None if args.retrieval_only else args.max_rounds,
        "fusion": str(args.fusion),
        "rerank": bool(args.rerank),
        "limit": args.limit,
        "principals": args.principal,
    }
