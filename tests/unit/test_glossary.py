"""Glossary files: what a line means and how a bad line is reported (no I/O)."""

from __future__ import annotations

from store.glossary import parse_glossary


def test_a_line_is_a_term_then_the_words_that_count_as_it() -> None:
    parsed = parse_glossary("# studio words\n\n画稿\tdraft\tsketch\nSprint\t冲刺\n",
                            "kb/glossary.tsv")
    assert parsed.entries == {"画稿": ("draft", "sketch"), "sprint": ("冲刺",)}
    assert parsed.problems == []


def test_a_term_listed_twice_keeps_every_synonym_once() -> None:
    parsed = parse_glossary("工位\tdesk\n工位\tworkstation\tdesk\n", "g.tsv")
    assert parsed.entries == {"工位": ("desk", "workstation")}


def test_a_line_without_a_synonym_is_named_with_the_fix_and_the_rest_is_kept() -> None:
    parsed = parse_glossary("工位\tdesk\n茶水间\n\t窑炉\nkiln\t窑\n", "kb/glossary.tsv")
    assert parsed.entries == {"工位": ("desk",), "kiln": ("窑",)}
    assert len(parsed.problems) == 2
    assert parsed.problems[0].startswith("kb/glossary.tsv:2: '茶水间' has no synonym")
    assert "a tab" in parsed.problems[0]
    assert parsed.problems[1].startswith("kb/glossary.tsv:3:")
