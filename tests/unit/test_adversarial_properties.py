"""Property tests: any text, however hostile, passes the offline rules and the chunker fast.

Questions go through normalize -> understand -> route -> plan -> bridge -> generate (the
offline engine's pure steps, as a turn runs them); documents through the chunker and, as
passages, through bridge and generate. Strings are random, or built from the shapes that
make backtracking patterns retry the same characters (runs of spaces, capitals, dots,
brackets, repeated words, mixed scripts). Each example has a deadline; a hard limit also
interrupts one that would run for minutes, so a regression fails quickly.
"""

from __future__ import annotations

from datetime import timedelta

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent.engine import OfflineEngine
from agent.normalize import MAX_QUESTION_CHARS, normalize_question
from agent.state import Facets, Passage, Turn
from store.chunking import chunk_text
from tests.timebox import time_limit

SHAPES = [" ", "  ", "\t", "\n", "\u3000", "\u00a0", "\u200b", "A", "Abc ", "A of ", "AB",
          ".", ". ", "...", "…", "!", "?", "!?…", ".!", "(", ")", "[", "]", "[1]", "((", "{",
          "《", "》", "\"", "'", "和", "与", "的", "中文", "比较", "and ", "or ", "vs ", "what ",
          "that ", "the ", ",", "，", "？", "#", "|", "-", "--", ":", "1", "2026", "é", "ß", "Ω",
          "😀", "x", "compare ", "between "]


# Real question openings and endings around the runs, so the text reaches the rules that
# only run on a question with content (comparisons, relative clauses, bridges).
OPENINGS = ["", "Compare ", "Is the Deploy Tool ", "What is the canary deploy ", "比较",
            "Which is older, ", "Who wrote "]
ENDINGS = ["", " and Crater Lake?", " that made it?", "的区别？", " x", "x", " or the pier?"]


@st.composite
def hostile(draw: st.DrawFn, max_chars: int) -> str:
    """A few shapes, each repeated many times (the long runs that make regexes backtrack),
    between a question's opening and ending."""
    parts = draw(st.lists(st.tuples(st.sampled_from(SHAPES), st.integers(1, 3000)),
                          min_size=1, max_size=3))
    body = "".join(shape * count for shape, count in parts)
    opening, ending = draw(st.sampled_from(OPENINGS)), draw(st.sampled_from(ENDINGS))
    # the whole question stays within the limit (a longer one is refused before any rule)
    return opening + body[:max_chars - len(opening) - len(ending)] + ending


# Document text: runs of sentence ends, spaces, headings, table pipes and brackets, each run
# long (few lengths, so every shape is tried long), then what follows it.
DOC_SHAPES = [".", "…", "!?…", ".!", " ", "\t", "A ", "#", "|", "(", "[1]", "和", "- ", "\n"]
DOC_ENDS = ["", "x", " ", "\n"]


@st.composite
def hostile_document(draw: st.DrawFn) -> str:
    runs = draw(st.lists(st.tuples(st.sampled_from(DOC_SHAPES),
                                   st.sampled_from([10, 300, 1500, 3000])),
                         min_size=1, max_size=3))
    return "".join(shape * count for shape, count in runs) + draw(st.sampled_from(DOC_ENDS))


QUESTIONS = st.one_of(st.text(max_size=300), hostile(MAX_QUESTION_CHARS))
DOCUMENTS = st.one_of(st.text(max_size=2000), hostile(10_000), hostile_document())
PER_EXAMPLE = settings(deadline=timedelta(milliseconds=500), max_examples=100, database=None,
                       suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
HARD_LIMIT_S = 3.0  # interrupts a runaway example; the deadline above is the real bound

ENGINE = OfflineEngine()
FACETS = Facets(doc_types=["runbook", "policy"], titles=["Deploy procedure", "Expense policy"],
                sources=["kb/deploy.md"])
EARLIER = Turn(question="How do I deploy the billing service?",
               rewritten="How do I deploy the billing service?", entities=["billing"],
               answer="Open a change ticket, then run the canary.", cited=[], refused=False,
               route="retrieval")


def _passage(i: int, text: str) -> Passage:
    return Passage(chunk_id=i, doc_id=f"d{i}", title=f"Doc {i}", source=f"kb/{i}.md",
                   doc_type="runbook", heading_path=["Doc"], text=text, score=1.0 / (i + 1),
                   rank=i, round=1, sub_id="q1")


def _turn(question: str, passage_text: str) -> None:
    """One turn's offline steps on ``question`` with a passage holding ``passage_text``."""
    q = normalize_question(question)
    u = ENGINE.understand({"question": q, "history": [EARLIER]})
    decision = ENGINE.route({"question": q, "understanding": u, "facets": FACETS})
    plan = ENGINE.plan({"question": q, "understanding": u, "route": "multi_retrieval",
                        "facets": FACETS})
    passages = [_passage(0, passage_text), _passage(1, "The Deploy Tool promotes releases.")]
    sub = plan["sub_questions"][-1]
    ENGINE.bridge({"sub_question": sub, "found": passages})
    ENGINE.generate({"question": q, "understanding": u,
                     "route": decision["route"] if decision["route"] != "clarify"
                     else "retrieval",
                     "queries": [s["query"] for s in plan["sub_questions"]],
                     "passages": passages, "attempt": 0, "rejected": []})


@PER_EXAMPLE
@given(QUESTIONS)
def test_any_question_passes_the_offline_steps_fast(question: str) -> None:
    with time_limit(HARD_LIMIT_S, "offline steps"):
        _turn(question, "To deploy, open a change ticket. Then run the canary deploy.")


@PER_EXAMPLE
@given(DOCUMENTS)
def test_any_passage_passes_bridge_and_generate_fast(text: str) -> None:
    with time_limit(HARD_LIMIT_S, "offline steps"):
        _turn("Which tool promotes the release that the canary deploy checks?", text)


@PER_EXAMPLE
@given(DOCUMENTS)
def test_any_document_is_chunked_fast(text: str) -> None:
    with time_limit(HARD_LIMIT_S, "chunking"):
        chunk_text(text)
        chunk_text(text, "text")
