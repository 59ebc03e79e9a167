"""The asker's text as every rule sees it: one space, no invisible characters, folded forms."""

from __future__ import annotations

import pytest

from agent.errors import QuestionTooLongError
from agent.normalize import MAX_QUESTION_CHARS, normalize_question


def test_every_kind_of_whitespace_becomes_one_space() -> None:
    raw = " Where\u00a0is\u3000the\tbadge\r\n\u2028office\u2029 \u202f\u205fdesk? "
    assert normalize_question(raw) == "Where is the badge office desk?"


def test_invisible_and_control_characters_are_removed() -> None:
    raw = "\ufeffre\u200bset my\u00ad pass\u200dword\x00\x07 now\u202e\ud83d?"
    assert normalize_question(raw) == "reset my password now?"


def test_compatibility_forms_fold_as_the_index_folds_them() -> None:
    assert normalize_question("Ｑ３ ｒｅｖｅｎｕｅ？") == "Q3 revenue?"
    assert normalize_question("ﬁnance report") == "finance report"


def test_chinese_text_keeps_its_own_punctuation() -> None:
    text = "报销流程是什么。 《差旅制度》里呢"
    assert normalize_question(text) == text


def test_a_question_over_the_limit_is_refused_with_the_limit_and_the_fix() -> None:
    with pytest.raises(QuestionTooLongError) as err:
        normalize_question("why " * MAX_QUESTION_CHARS)
    message = str(err.value)
    assert f"{4 * MAX_QUESTION_CHARS:,} characters" in message
    assert f"limit is {MAX_QUESTION_CHARS:,}" in message
    assert "one part at a time" in message


def test_a_question_at_the_limit_is_accepted() -> None:
    assert normalize_question("x" * MAX_QUESTION_CHARS) == "x" * MAX_QUESTION_CHARS
