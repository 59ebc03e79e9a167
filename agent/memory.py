"""Thread memory (LangGraph's Postgres checkpointer) and per-thread run serialization."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from agent.errors import ThreadBusyError

if TYPE_CHECKING:
    from psycopg_pool import ConnectionPool

# Advisory-lock class for "one run at a time per thread" ("th").
_THREAD_LOCK_NAMESPACE = 0x7468


class Checkpointer:
    """A PostgresSaver on its own small pool (the saver needs dict rows and no prepares)."""

    def __init__(self, conninfo: str, *, max_size: int = 4) -> None:
        # Stored checkpoints may only revive built-in types (the serializer below is strict
        # too; the variable covers any other serializer LangGraph builds).
        os.environ.setdefault("LANGGRAPH_STRICT_MSGPACK", "true")
        from langgraph.checkpoint.postgres import PostgresSaver
        from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
        from psycopg.rows import dict_row
        from psycopg_pool import ConnectionPool

        self.pool: ConnectionPool = ConnectionPool(
            conninfo, min_size=1, max_size=max_size, open=True,
            kwargs={"autocommit": True, "row_factory": dict_row, "prepare_threshold": 0})
        self.saver = PostgresSaver(self.pool,  # type: ignore[arg-type]
                                   serde=JsonPlusSerializer(allowed_msgpack_modules=None))
        self.saver.setup()

    def close(self) -> None:
        self.pool.close()


def postgres_checkpointer(pool: ConnectionPool) -> Checkpointer:
    """A checkpointer on the same database as ``pool``; tables are created on first use."""
    return Checkpointer(str(pool.conninfo))


@contextlib.contextmanager
def thread_lock(pool: ConnectionPool, thread_id: str, timeout_s: float) -> Iterator[None]:
    """Hold the thread's advisory lock: turns of one thread run one after another,
    across processes and replicas. Raises ThreadBusyError after ``timeout_s``."""
    import psycopg

    with pool.connection() as conn:
        conn.execute("SELECT set_config('lock_timeout', %s, false)",
                     [f"{int(timeout_s * 1000)}ms"])
        try:
            conn.execute("SELECT pg_advisory_lock(%s, hashtext(%s))",
                         [_THREAD_LOCK_NAMESPACE, thread_id])
        except psycopg.errors.LockNotAvailable as exc:
            raise ThreadBusyError(thread_id, timeout_s) from exc
        finally:
            conn.execute("SELECT set_config('lock_timeout', '0', false)")
        try:
            yield
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s, hashtext(%s))",
                         [_THREAD_LOCK_NAMESPACE, thread_id])


def checkpoint_saver(checkpointer: Any) -> Any:
    """The LangGraph saver inside ``checkpointer`` (or ``checkpointer`` itself)."""
    return getattr(checkpointer, "saver", checkpointer)
