"""Rules applied to questions and documents take time in proportion to the text.

Each input below is shaped to make a backtracking pattern retry the same characters over
and over (runs of spaces, capitals, dots, a link word with no pair). 10 KB of it must pass
in well under a second; the patterns these replace took minutes on some of them. The same
rules still give their ordinary answers on ordinary text (see test_agent_offline).
"""

from __future__ import annotations

import pytest

from agent.offline.chain import title_core
from agent.offline.plan import candidate_entities, comparison_parts
from agent.offline.route import has_relative_clause, is_chitchat, is_comparison
from agent.text import strip_citations
from store.chunking import chunk_text, parse_blocks, split_sentences
from tests.timebox import timed

LIMIT_S = 0.5
N = 10_000

QUESTIONS = {
    "spaces before a word": "compare a" + " " * N + "b",
    "capitals with no pair": "Are " + "A" * N + " x",
    "capital words with no pair": "Is " + "Abc " * (N // 4) + "x",
    "capitals and fillers": "Was " + "Bank of " * (N // 8) + "x",
    "dots and spaces": ". " * (N // 2) + "x",
    "link words with no end": "比较" + "和" * N,
    "greeting then punctuation": "hi" + "!" * N + "x",
    "commas with no or": "which " + "," * N,
}
DOCUMENTS = {
    "dots then a letter": "a" + "." * N + "x",
    "mixed stops": "Wait" + ".!?…" * (N // 4) + "x",
    "spaces in a heading": "# a" + " " * N + "b",
    "spaces after a table pipe": "| a |\n|" + " " * N + "x\n",
    "spaces before a citation": "x" + " " * N + "y [1]",
    "spaced capitals": "A" + " " * N + "b",
    "open parentheses": "(" * N,
}


@pytest.mark.parametrize("text", QUESTIONS.values(), ids=QUESTIONS.keys())
def test_question_rules_are_linear(text: str) -> None:
    for rule in (comparison_parts, is_chitchat, is_comparison, has_relative_clause):
        timed(LIMIT_S, rule, text)


@pytest.mark.parametrize("text", DOCUMENTS.values(), ids=DOCUMENTS.keys())
def test_document_rules_are_linear(text: str) -> None:
    def entities(s: str) -> list[str]:
        return candidate_entities(s, "a question")

    for rule in (split_sentences, parse_blocks, entities, title_core, strip_citations):
        timed(LIMIT_S, rule, text)
    timed(LIMIT_S * 4, chunk_text, text)  # also counts tokens: more work per character


def test_rewritten_rules_keep_their_answers() -> None:
    assert comparison_parts("Is Lake Tahoe deeper than Crater Lake and Loch Ness?") == [
        "Crater Lake", "Loch Ness"]
    assert comparison_parts("Which is older, the pier or the lighthouse?") == [
        "the pier", "the lighthouse"]
    assert comparison_parts("北京和上海的人口哪个多？") == ["北京", "上海"]
    assert has_relative_clause("Who wrote the novel that inspired the opera?")
    assert not has_relative_clause("Who wrote it?")
    assert is_chitchat("hello bot!!")
    assert not is_chitchat("hello, what is the VPN address?")
    assert title_core("Night Train (1959 film)") == "Night Train"
    assert title_core("Night Train (film) (remake)") == "Night Train (film)"
    assert split_sentences("It rained... Then it stopped! Did it? Yes.") == [
        "It rained... ", "Then it stopped! ", "Did it? ", "Yes."]
    blocks = parse_blocks("## Restore steps ##  \n\nRun the job.")
    assert blocks[0].heading_path == ("Restore steps",)
