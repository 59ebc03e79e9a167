"""The packaged workplace lexicon (store/lexicon.tsv): every line parses, the file ships with
the package, and its entries lead CC-CEDICT's in the merged lookups."""

from __future__ import annotations

import fnmatch
import gzip
import tomllib
from pathlib import Path

import pytest

from store import cedict
from store.crosslang import candidates
from store.lexicon import DATA_FILE, LexiconError, packaged, packaged_text, parse
from store.tokenize import query_terms

ROOT = Path(__file__).resolve().parents[2]
LINES = [(n, line) for n, line in enumerate(packaged_text().splitlines(), start=1)
         if line.strip() and not line.startswith("#")]


def test_every_line_of_the_packaged_lexicon_is_one_entry() -> None:
    problems = []
    for number, line in LINES:
        try:
            (entry,) = parse(line)
        except LexiconError as exc:
            problems.append(f"line {number}: {exc}")
            continue
        if entry.headword != line.split("\t")[0] or not entry.glosses:
            problems.append(f"line {number}: read as {entry}")
    assert problems == []


def test_the_packaged_lexicon_parses_whole_and_has_a_few_hundred_entries() -> None:
    entries = packaged()
    assert len(entries) == len(LINES) >= 300
    header = packaged_text().split("\n\n")[0]
    assert "Source:" in header
    assert "License: Apache-2.0" in header


def test_the_lexicon_is_package_data() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = config["tool"]["setuptools"]["package-data"]["store"]
    assert any(fnmatch.fnmatch(DATA_FILE, p) for p in patterns)
    assert (ROOT / "store" / DATA_FILE).is_file()


@pytest.mark.parametrize(("text", "problem"), [
    ("封网 change freeze", "line 1: no tab"),
    ("freeze\tchange freeze", "not two or more Chinese characters"),
    ("封网\tChange Freeze", "not lower-case words"),
    ("封网\tchange freeze/", "an empty gloss"),
    ("封网\tfreeze of all production changes", "more than 3 words"),
    ("# header\n封网\tchange freeze\n封网\tcode freeze", "line 3: 封网 is listed twice"),
])
def test_a_malformed_line_is_named_with_its_number(text: str, problem: str) -> None:
    with pytest.raises(LexiconError, match=problem):
        parse(text)


def test_lexicon_entries_lead_the_dictionarys_in_both_directions(tmp_path: Path) -> None:
    source = tmp_path / "mini.txt.gz"
    with gzip.open(source, "wt", encoding="utf-8") as fh:
        fh.write("封網 封网 [feng1 wang3] /to seal off a network/\n"
                 "發佈 发布 [fa1 bu4] /to issue/to announce/to release/\n")
    merged = cedict.load(source, None, "封网\tchange freeze/code freeze\n上线\tgo live\n")
    assert merged.zh_en["封网"] == ["change freeze", "code freeze", "seal off a network"]
    assert merged.en_zh["change freeze"] == ["封网"]
    assert merged.zh_en["上线"] == ["go live"]  # a term the dictionary lacks
    assert merged.workplace == {"change freeze": ["封网"], "code freeze": ["封网"],
                                "go live": ["上线"]}
    assert merged.en_zh["release"] == ["发布"]


def test_a_changed_lexicon_is_parsed_afresh_not_read_from_the_cache(tmp_path: Path) -> None:
    source = tmp_path / "mini.txt.gz"
    with gzip.open(source, "wt", encoding="utf-8") as fh:
        fh.write("書架 书架 [shu1 jia4] /bookshelf/\n")
    cache = tmp_path / "cache"
    assert "内网" not in cedict.load(source, cache, "").zh_en
    assert cedict.load(source, cache, "内网\tintranet\n").zh_en["内网"] == ["intranet"]


def test_a_chinese_term_is_rendered_by_its_whole_english_phrases_first() -> None:
    found = candidates("封网期间能发版吗", query_terms("封网期间能发版吗"), cedict.load_cedict())
    assert found["封网"][:2] == ["change freeze", "code freeze"]
    assert found["发版"] == ["release", "ship a release"]


def test_a_workplace_phrase_wins_over_a_dictionary_phrase_it_overlaps() -> None:
    # CC-CEDICT glosses 因公 "on business"; the lexicon's "business trip" is 出差
    query = "Is there a hotel allowance on business trips?"
    found = candidates(query, query_terms(query), cedict.load_cedict())
    assert found["business trips"] == ["出差"]
    assert "on business" not in found
