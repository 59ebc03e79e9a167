"""The answer shown as it is written: each sentence once it passes verification, never
unchecked text.

While the model writes (``Engine.generate_streaming``), a sentence is shown when the offline
rule finds it in a passage it cites and every sentence before it was shown; the first one
the rule cannot match holds back the rest until ``verify`` has judged the whole draft. Each
event carries the verified answer so far, cumulative and with its ``[n]`` document marks as
the final answer numbers them (``finalize.cite_documents`` numbers in order of first
citation, so a prefix keeps its numbers), on LangGraph's custom stream beside the stages.
"""

from __future__ import annotations

from langgraph.runtime import Runtime

from agent.context import RunContext
from agent.messages import stage_message
from agent.nodes.finalize import cite_documents
from agent.state import Draft, Language, Passage, Sentence


def emit_answer(runtime: Runtime[RunContext], sentences: list[Sentence], pool: list[Passage],
                language: Language) -> None:
    """Send the verified answer so far (``sentences``, in order)."""
    text, _ = cite_documents(Draft(sentences=sentences, refused=False, text=""), pool,
                             language)
    runtime.stream_writer({"stage": "writing", "round": None, "max_rounds": None,
                           "message": stage_message("writing", language), "answer": text})


class VerifiedPrefix:
    """Collects the sentences offered while the draft is written and shows the longest
    prefix the rule verifies."""

    def __init__(self, runtime: Runtime[RunContext], pool: list[Passage],
                 language: Language) -> None:
        self._runtime = runtime
        self._pool = pool
        self._language = language
        self.sentences: list[Sentence] = []
        self._held = False

    def offer(self, index: int, sentence: Sentence) -> None:
        """``Engine.generate_streaming``'s callback."""
        if self._held or index != len(self.sentences):
            return
        if not self._runtime.context.engine.rule_supports(sentence, self._pool):
            self._held = True  # verify judges it and what follows it
            return
        self.sentences.append(sentence)
        emit_answer(self._runtime, self.sentences, self._pool, self._language)
