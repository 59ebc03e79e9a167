from __future__ import annotations

import pytest

from bot.conversations.commands import Command, CommandError, parse_command
from bot.conversations.texts import HELP_TEXT, REFUSAL, command_help, pick, status_text
from bot.slack.surface import SlackSurface


def is_admin(user: str, admins: list[str]) -> bool:
    return SlackSurface(None, None, admins=admins).is_admin(user)  # type: ignore[arg-type]


@pytest.mark.parametrize("text", ["help", "HELP", "help me please"])
def test_help_means_help(text: str) -> None:
    assert parse_command(text) == Command("help")


@pytest.mark.parametrize("text", [None, "", "   "])
def test_a_bare_command_is_help_in_both_languages(text: str | None) -> None:
    cmd = parse_command(text)
    assert cmd == Command("help", lang="")
    both = command_help(cmd.lang)
    assert "/ragbot status" in both
    assert "/ragbot 状态" in both
    assert command_help("zh") == HELP_TEXT["zh"]


def test_reindex_without_kb_leaves_the_default_to_the_caller() -> None:
    assert parse_command("reindex") == Command("reindex", None)


def test_reindex_and_status_take_one_kb_name() -> None:
    assert parse_command("reindex hr-docs") == Command("reindex", "hr-docs")
    assert parse_command("  Status   eng_v2.1 ") == Command("status", "eng_v2.1")


def test_only_reindex_is_admin_only() -> None:
    assert Command("reindex").admin_only
    assert not Command("status").admin_only
    assert not Command("help").admin_only


def test_unknown_command_names_it_and_points_to_help() -> None:
    with pytest.raises(CommandError, match=r"Unknown command `delete`.*/ragbot help"):
        parse_command("delete everything")


def test_two_kb_names_are_refused_with_an_example() -> None:
    with pytest.raises(CommandError, match=r"at most one knowledge base.*/ragbot reindex default"):
        parse_command("reindex a b")


@pytest.mark.parametrize("name", ["<!channel>", "a;drop", "-x", "x" * 101])
def test_bad_kb_names_are_refused(name: str) -> None:
    with pytest.raises(CommandError, match="not a knowledge base name"):
        parse_command(f"status {name}")


def test_admin_check_needs_a_listed_user_id() -> None:
    assert is_admin("U1", ["U0", "U1"])
    assert not is_admin("U2", ["U0", "U1"])
    assert not is_admin("", [""])


def test_refusal_says_who_may_run_it() -> None:
    text = pick(REFUSAL, "en", action=Command("reindex").action)
    assert "/ragbot reindex" in text
    assert "RAGBOT_ADMINS" in text


def test_help_lists_every_command() -> None:
    for word in ("/ragbot status", "/ragbot reindex", "/ragbot help"):
        assert word in HELP_TEXT["en"]
    for word in ("/ragbot 状态", "/ragbot 重建索引", "/ragbot 帮助", "reindex"):
        assert word in HELP_TEXT["zh"]


def test_english_command_words_give_english_replies() -> None:
    assert parse_command("status hr").lang == "en"


def test_chinese_command_words_mean_the_same_commands_in_chinese() -> None:
    assert parse_command("帮助") == Command("help", lang="zh")
    assert parse_command("状态 hr-docs") == Command("status", "hr-docs", "zh")
    assert parse_command("重建索引") == Command("reindex", None, "zh")


def test_a_chinese_asker_gets_chinese_errors() -> None:
    with pytest.raises(CommandError, match=r"无法识别的命令 `删除`.*/ragbot 帮助"):
        parse_command("删除 全部")
    with pytest.raises(CommandError, match=r"最多接受一个知识库名称.*/ragbot 状态 default"):
        parse_command("状态 a b")
    with pytest.raises(CommandError, match=r"`人事` 不是知识库名称"):
        parse_command("状态 人事")


def _kb(name: str, docs: int = 3) -> dict[str, object]:
    return {"name": name, "documents": docs, "chunks": docs * 4, "embed_model": "m",
            "embed_dim": 384, "generation": 2, "last_ingest_at": "2026-01-02T03:04:05+00:00"}


def test_status_shows_counts_and_a_running_reindex() -> None:
    text = status_text([_kb("default"), _kb("hr", 1)],
                       [{"job_id": 7, "kb": "hr", "status": "doing", "user": "U1"}])
    assert "`default`: 3 documents, 12 chunks" in text
    assert "2026-01-02 03:04:05" in text
    hr_line = next(line for line in text.splitlines() if "`hr`" in line)
    assert "reindex running" in hr_line
    assert "No reindex running" not in text


def test_status_says_when_nothing_runs_and_when_a_kb_is_missing() -> None:
    assert "No reindex running." in status_text([_kb("default")], [])
    missing = status_text([_kb("default")], [], missing="nope")
    assert "`nope` does not exist" in missing
    assert "`default`" in missing
    assert "ragbot ingest" in status_text([], [])


def test_status_shows_the_answer_cache_hit_rate() -> None:
    kb = {**_kb("default"), "answer_cache": {"lookups": 8, "hits": 2, "entries": 1,
                                              "hit_rate": 0.25}}
    assert "answer cache 25% hits (2 of 8)" in status_text([kb, _kb("hr")], [])
    assert "answer cache not used yet" in status_text([_kb("hr")], [])


def test_status_in_chinese_has_the_same_figures() -> None:
    kb = {**_kb("default"), "answer_cache": {"lookups": 8, "hits": 2}}
    text = status_text([kb, _kb("hr", 1)],
                       [{"job_id": 7, "kb": "hr", "status": "todo", "user": "U1"}], lang="zh")
    assert text.startswith("*知识库*")
    assert "`default`：3 个文档，12 个分块" in text
    assert "答案缓存命中率 25%（8 次中 2 次）" in text
    hr_line = next(line for line in text.splitlines() if "`hr`" in line)
    assert "重建索引排队中" in hr_line
    assert "知识库 `nope` 不存在" in status_text([kb], [], missing="nope", lang="zh")
    assert "没有正在进行的重建索引" in status_text([kb], [], lang="zh")
