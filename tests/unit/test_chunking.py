"""Structure-aware chunking: heading paths, sizes, overlap, tables and code kept whole."""

from __future__ import annotations

import itertools
import re

from store.chunking import (
    MAX_TOKENS,
    chunk_text,
    embedding_input,
    parse_blocks,
    split_sentences,
)
from store.tokenize import count_tokens

ZH_SENTENCE = "服务器频繁告警时需要先查看监控面板并确认告警来源。"
EN_SENTENCE = "The rollback procedure requires a second approval from the on-call lead. "


def test_heading_path_follows_markdown_nesting() -> None:
    text = ("# Ops\n\nIntro.\n\n## Redis\n\nMemory.\n\n### Persistence\n\nAOF.\n\n"
            "## Kafka\n\nLag.\n")
    paths = [c.heading_path for c in chunk_text(text)]
    assert paths == [("Ops",), ("Ops", "Redis"), ("Ops", "Redis", "Persistence"),
                     ("Ops", "Kafka")]
    assert [c.text for c in chunk_text(text)] == ["Intro.", "Memory.", "AOF.", "Lag."]


def test_positions_are_sequential_and_token_counts_match_text() -> None:
    chunks = chunk_text("# A\n\n" + EN_SENTENCE * 80 + "\n\n# B\n\nShort.")
    assert [c.position for c in chunks] == list(range(len(chunks)))
    assert all(c.token_count == count_tokens(c.text) for c in chunks)


def test_long_chinese_prose_is_cut_at_sentence_ends_with_overlap() -> None:
    sentences = [f"第{i}条：{ZH_SENTENCE}" for i in range(200)]
    chunks = chunk_text("".join(sentences), "text")
    assert len(chunks) >= 3
    assert all(c.token_count <= MAX_TOKENS + 5 for c in chunks)
    assert all(c.text.endswith("。") and c.text.startswith("第") for c in chunks)
    for first, second in itertools.pairwise(chunks):
        shared = [s for s in sentences if s in first.text and s in second.text]
        assert second.text.startswith("".join(shared))
        assert first.text.endswith("".join(shared))
        assert 60 <= count_tokens("".join(shared)) <= 100
    # Nothing is lost: every sentence is in some chunk.
    assert all(any(s in c.text for c in chunks) for s in sentences)


def test_english_prose_is_cut_between_sentences() -> None:
    chunks = chunk_text(EN_SENTENCE * 120, "text")
    assert len(chunks) >= 2
    assert all(c.text.startswith("The rollback") and c.text.endswith("lead.") for c in chunks)
    assert all(c.token_count <= MAX_TOKENS + 5 for c in chunks)


def test_sentence_splitter_handles_chinese_and_english_ends() -> None:
    assert split_sentences("告警了。怎么办？快处理！Done. Next one\nline two") == [
        "告警了。", "怎么办？", "快处理！", "Done. ", "Next one\n", "line two"]
    text = "第一句。Second sentence! 第三句？"
    assert "".join(split_sentences(text)) == text


def test_sentence_longer_than_the_limit_is_split_without_losing_text() -> None:
    run_on = "词" * 3000  # no punctuation at all
    chunks = chunk_text(run_on, "text")
    assert len(chunks) > 1
    assert all(c.token_count <= MAX_TOKENS for c in chunks)
    assert sum(len(c.text) for c in chunks) >= 3000


def test_table_and_code_block_are_kept_whole() -> None:
    table = "| 服务 | 负责人 |\n|---|---|\n| Redis | 张三 |\n| Kafka | 李四 |"
    code = "```bash\n# not a heading\nredis-cli info memory\n\nredis-cli config get maxmemory\n```"
    text = f"# Runbook\n\n{EN_SENTENCE * 2}\n\n{table}\n\n{code}\n\nAfter.\n"
    chunks = chunk_text(text)
    assert len(chunks) == 1
    assert table in chunks[0].text
    assert code in chunks[0].text
    assert chunks[0].heading_path == ("Runbook",)
    blocks = parse_blocks(text)
    assert [b.kind for b in blocks] == ["prose", "table", "code", "prose"]


def test_long_table_is_split_by_rows_with_header_repeated() -> None:
    header = "| host | role | notes |\n|---|---|---|"
    rows = [f"| host-{i} | database replica | rebuilt weekly on sunday night {i} |"
            for i in range(200)]
    chunks = chunk_text("# Inventory\n\n" + header + "\n" + "\n".join(rows))
    assert len(chunks) > 2
    seen: list[str] = []
    for chunk in chunks:
        assert chunk.text.startswith(header + "\n")
        assert chunk.token_count <= MAX_TOKENS
        assert chunk.heading_path == ("Inventory",)
        seen.extend(chunk.text.split("\n")[2:])
    assert seen == rows  # every row exactly once, in order


def test_long_code_block_is_split_by_lines_each_piece_fenced() -> None:
    lines = [f"    result_{i} = compute(value_{i}, factor={i})" for i in range(400)]
    chunks = chunk_text("```python\n" + "\n".join(lines) + "\n```")
    assert len(chunks) > 1
    assert all(c.text.startswith("```python\n") and c.text.endswith("\n```") for c in chunks)
    body = [line for c in chunks for line in c.text.split("\n")[1:-1]]
    assert body == lines


def test_prose_overlap_never_copies_tables_into_the_next_chunk() -> None:
    table = "| k | v |\n|---|---|\n| a | 1 |"
    text = EN_SENTENCE * 40 + "\n\n" + table + "\n\n" + EN_SENTENCE * 40
    chunks = chunk_text(text)
    assert sum(c.text.count("| a | 1 |") for c in chunks) == 1


def test_plain_text_does_not_treat_hash_lines_as_headings() -> None:
    chunks = chunk_text("# not a heading in a .txt\n\nbody", "text")
    assert chunks[0].heading_path == ()
    assert chunks[0].text.startswith("# not a heading")


def test_whitespace_only_text_has_no_chunks() -> None:
    assert chunk_text(" \n\n\t\n") == []


def test_embedding_input_is_title_heading_path_then_text() -> None:
    assert embedding_input("Runbook", ("Redis", "Memory"), "Check maxmemory.") == (
        "Runbook\nRedis > Memory\nCheck maxmemory.")
    assert embedding_input("T", (), "body") == "T\nbody"
    # The H1 that repeats the title is not repeated in the input.
    assert embedding_input("Runbook", ("Runbook", "Redis"), "x") == "Runbook\nRedis\nx"


def test_run_of_huge_words_is_split_into_bounded_chunks() -> None:
    minified = "abcdefghij" * 50_000  # one 500,000-character "word"
    chunks = chunk_text(minified, "text")
    assert len(chunks) > 1
    assert max(len(c.text) for c in chunks) <= MAX_TOKENS * 16
    assert "".join(c.text for c in chunks) == minified


def test_a_list_number_stays_with_its_item_at_a_chunk_boundary() -> None:
    steps = "\n".join(f"{n}. Step {n}: check the pump valve and write the pressure down."
                      for n in range(1, 13))
    chunks = chunk_text(f"# Pump checks\n\n## Steps\n\n{steps}\n", max_tokens=40, overlap=8)
    assert len(chunks) > 2
    for chunk in chunks:
        for line in chunk.text.splitlines():
            assert re.match(r"^\d{1,2}\. Step \d{1,2}: check", line), line
