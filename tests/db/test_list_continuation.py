"""A step list longer than a chunk is answered whole: the chunk after a found one that ends
on a list item is fetched (real Postgres, the real embedder, the whole offline graph)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from psycopg_pool import ConnectionPool

from agent.api import Agent, Question, build_agent
from agent.types import AgentConfig
from store.continuation import list_continuations
from store.search import search
from store.types import PUBLIC, SourceDocument

pytestmark = [pytest.mark.db, pytest.mark.model]

KB = "continuation-test"
OWNER = "user:U0OPS"
STEPS = "\n".join(
    f"{n}. Step {n} of the cold-room restart: read gauge {n} on panel B, write the value in "
    f"the shift log with the time and your badge number, and wait until the green lamp {n} "
    f"stops blinking before you touch the next switch on the panel." for n in range(1, 15))
RUNBOOK = f"""# Cold-room restart runbook

The cold room is restarted after every power cut. This runbook is for the facilities team.

## Restart procedure

{STEPS}
"""


def documents(acl: tuple[str, ...] = (PUBLIC,)) -> list[SourceDocument]:
    return [SourceDocument(doc_key="cold-room", source="ops/cold-room.md",
                           title="Cold-room restart runbook", doc_type="runbook",
                           fmt="markdown", text=RUNBOOK, acl=acl)]


@pytest.fixture
def agent(pool: ConnectionPool, embedder: Any) -> Iterator[Agent]:
    from store.ingest import ingest_documents

    report = ingest_documents(pool, KB, documents(), embedder=embedder)
    assert report.failed == 0, report.errors
    # Two hits a search, one round: the intro and one chunk of the list are found, the
    # list's other chunk only by following it.
    a = build_agent(pool, embedder, config=AgentConfig(k=2, max_rounds=1))
    yield a
    a.close()


def test_a_how_question_over_a_list_longer_than_a_chunk_gets_every_step(agent: Agent) -> None:
    result = agent.ask(Question(text="How do I restart the cold room after a power cut?",
                                thread_id="cold-room", kb=KB))
    assert not result.refused
    numbers = [m.group(1) for line in result.text.splitlines()
               if (m := re.match(r"(\d{1,2})\. Step", line))]
    assert numbers == [str(n) for n in range(1, 15)]


def test_the_next_chunk_of_a_cut_list_is_fetched_only_for_readers(
        pool: ConnectionPool, embedder: Any) -> None:
    from store.ingest import ingest_documents

    ingest_documents(pool, KB, documents(acl=(OWNER,)), embedder=embedder)
    hits = search(pool, KB, "cold-room restart step 1 gauge 1", embedder=embedder, k=10,
                  principals=[OWNER])
    first = next(h for h in hits if "1. Step 1 " in h.text)
    assert "14. Step 14 " not in first.text  # the list does span two chunks
    found = list_continuations(pool, [first], [OWNER])
    assert first.chunk_id in found
    assert found[first.chunk_id].heading_path == first.heading_path
    assert "14. Step 14 " in found[first.chunk_id].text
    assert list_continuations(pool, [first], [PUBLIC]) == {}
