"""The core's inbound model: thread keys, access per conversation kind, KB binding, texts."""

from __future__ import annotations

import pytest

from bot.conversations import texts
from bot.conversations.model import (
    MAX_QUESTION_CHARS,
    ConversationKbs,
    ConversationKind,
    Place,
    access,
    cut_question,
    principals,
)


def test_slack_thread_key_is_unchanged_by_the_core() -> None:
    # checkpoints of threads answered before the core existed are found under this key
    place = Place("slack", "T9", "C42", "1700000000.000100")
    assert place.thread_key == "slack:T9:C42:1700000000.000100"


def test_teams_and_slack_threads_never_share_a_key() -> None:
    a = Place("slack", "W1", "19:abc", "1")
    b = Place("teams", "W1", "19:abc", "1")
    assert a.thread_key != b.thread_key


@pytest.mark.parametrize(("kind", "expected"), [
    ("public", ("public",)),
    ("external-shared", ("public",)),
    ("private", ("public", "channel:G7")),
    ("group", ("public", "channel:G7")),
    ("direct", ("public", "user:U3", "group:S1")),
])
def test_the_conversation_bounds_what_may_be_read(kind: ConversationKind,
                                                  expected: tuple[str, ...]) -> None:
    assert principals(kind, conversation="G7", asker="U3", groups=("S1",)) == expected


def test_asker_principals_are_the_askers_own_whatever_the_conversation() -> None:
    a = access("external-shared", conversation="C5", asker="U8", groups=("S2",))
    assert a.principals == ("public",)
    assert a.asker_principals == ("public", "user:U8", "group:S2")


def test_a_conversation_may_be_bound_to_several_knowledge_bases() -> None:
    kbs = ConversationKbs(default=("handbook",), bindings={"C1": ("it", "security")})
    assert kbs.for_conversation("C1") == ("it", "security")
    assert kbs.for_conversation("C2") == ("handbook",)


def test_long_questions_are_cut_and_say_so() -> None:
    assert cut_question("short") == ("short", False)
    text, cut = cut_question("x" * (MAX_QUESTION_CHARS + 5))
    assert cut
    assert len(text) == MAX_QUESTION_CHARS


def test_help_has_each_surfaces_wording_and_neutral_wording_elsewhere() -> None:
    assert "/ragbot" in texts.help_text("slack", "en")
    assert "1:1" in texts.help_text("teams", "en")  # Teams' words: 1:1 chats, "new"
    assert "新问题" in texts.help_text("teams", "zh")
    assert "@" not in texts.help_text("matrix", "en")
    assert texts.help_text("matrix", "zh") == texts.HELP_ANY["zh"]


def test_every_text_has_both_languages() -> None:
    tables = [v for k, v in vars(texts).items()
              if k.isupper() and isinstance(v, dict) and "en" in v]
    assert len(tables) > 10
    for table in tables:
        assert set(table) == {"zh", "en"}
