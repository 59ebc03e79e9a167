"""How many turn workers a host runs by default: two per core, as many as half its memory
holds at one worker's measured size for the embedding backend, at most eight.

A turn spends about half its time waiting (status writes paced to one a second per thread,
Slack and database round trips), so one worker per core leaves the cores idle (50 questions
at once on 2 cores: all answered in 31 s with 2 workers, 16 s with 4). Each worker holds its
own embedder and agent; the other half of memory is left to PostgreSQL, the serving process
and ingestion.
"""

from __future__ import annotations

import os
from pathlib import Path

# Resident memory of one answering worker after answering, per backend, rounded up
# (python -m bench.worker_memory: torch 737 MB, onnx 333 MB, onnx-int8 255 MB).
WORKER_MB = {"torch": 750, "onnx": 350, "onnx-int8": 260}
MEMORY_SHARE = 0.5
MOST = 8


def default_workers(backend: str, *, cpus: int | None = None,
                    memory_mb: float | None = None) -> int:
    """The default ``RAGBOT_SLACK_WORKERS`` for ``backend`` on this host (or on a host with
    ``cpus`` cores and ``memory_mb`` of memory); never below one."""
    cpus = cpus if cpus is not None else (os.cpu_count() or 1)
    memory_mb = memory_mb if memory_mb is not None else host_memory_mb()
    by_memory = int(memory_mb * MEMORY_SHARE // WORKER_MB.get(backend, WORKER_MB["torch"]))
    return max(1, min(MOST, 2 * cpus, by_memory))


def host_memory_mb() -> float:
    """Physical memory, or the container's memory limit (cgroup v2) when lower."""
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**20
    try:
        limit = Path("/sys/fs/cgroup/memory.max").read_text(encoding="utf-8").strip()
    except OSError:
        return total
    return min(total, int(limit) / 2**20) if limit.isdigit() else total
