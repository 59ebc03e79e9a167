"""The parsed dictionary is kept on disk and read back instead of parsed again."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from store import cedict

# Three entries in CC-CEDICT's line format (traditional simplified [pinyin] /gloss/...).
ENTRIES = """# a comment line
書架 书架 [shu1 jia4] /bookshelf/bookcase/
雨傘 雨伞 [yu3 san3] /umbrella/CL:把[ba3]/
冰箱 冰箱 [bing1 xiang1] /icebox/refrigerator/see 雪櫃|雪柜[xue3 gui4]/
報銷 报销 [bao4 xiao1] /to submit an expense account/to apply for reimbursement/
"""


@pytest.fixture
def source(tmp_path: Path) -> Path:
    path = tmp_path / "mini.txt.gz"
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        fh.write(ENTRIES)
    return path


def test_a_second_load_reads_the_kept_file_and_gives_the_same_lookups(
        source: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tmp_path / "cache"
    first = cedict.load(source, cache)
    assert first.zh_en["书架"] == ["bookshelf", "bookcase"]
    assert first.en_zh["umbrella"] == ["雨伞"]
    assert "see 雪櫃|雪柜" not in " ".join(first.zh_en["冰箱"])
    assert len(list(cache.glob("cedict-*.marshal"))) == 1

    def no_parsing(path: Path) -> None:
        raise AssertionError("parsed again although the cache holds it")

    monkeypatch.setattr(cedict, "parse", no_parsing)
    second = cedict.load(source, cache)
    assert dict(second.zh_en) == dict(first.zh_en)
    assert dict(second.en_zh) == dict(first.en_zh)
    assert dict(second.ending) == dict(first.ending)


def test_a_changed_dictionary_is_parsed_afresh(source: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cedict.load(source, cache)
    with gzip.open(source, "wt", encoding="utf-8") as fh:
        fh.write(ENTRIES + "鑰匙 钥匙 [yao4 shi5] /key/\n")
    assert cedict.load(source, cache).zh_en["钥匙"] == ["key"]


def test_a_damaged_cache_file_is_parsed_again_and_replaced(source: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cedict.load(source, cache)
    (kept,) = cache.glob("cedict-*.marshal")
    kept.write_bytes(b"\x00not marshal")
    assert cedict.load(source, cache).zh_en["雨伞"] == ["umbrella"]
    assert cedict.load(source, cache).en_zh["bookcase"] == ["书架"]
    assert kept.read_bytes() != b"\x00not marshal"


def test_an_unwritable_cache_folder_costs_speed_not_the_lookups(source: Path,
                                                               tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder", encoding="utf-8")
    assert cedict.load(source, blocker / "cache").zh_en["冰箱"] == ["icebox", "refrigerator"]


def test_a_word_is_found_at_the_end_of_the_glosses_of_two_or_three_words(
        source: Path) -> None:
    lookups = cedict.load(source, None)
    assert lookups.ending["reimbursement"] == ["报销"]
    assert "account" not in lookups.ending  # "submit an expense account": four words
    assert "umbrella" not in lookups.ending  # a one-word gloss is a whole gloss, not an end
