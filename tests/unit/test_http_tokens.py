"""RAGBOT_API_TOKENS: parsing, errors that never show a token, constant-time lookup."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from bot.http.tokens import find_token, parse_tokens
from bot.settings import Settings

LONG_A = "alpha-token-0123456789"
LONG_B = "bravo-token-9876543210"


def test_each_token_reads_public_plus_its_own_principals() -> None:
    a, b = parse_tokens(f"{LONG_A}=user:U1+group:G2 , {LONG_B}=public,")
    assert a.principals == ("public", "user:U1", "group:G2")
    assert b.principals == ("public",)
    assert a.label != b.label
    assert LONG_A not in a.label
    assert LONG_A not in repr(a)


def test_find_token_matches_whole_tokens_only() -> None:
    tokens = parse_tokens(f"{LONG_A}=public,{LONG_B}=user:U9")
    found = find_token(tokens, LONG_B)
    assert found is not None
    assert found.principals == ("public", "user:U9")
    assert find_token(tokens, LONG_B[:-1]) is None
    assert find_token(tokens, LONG_B + "x") is None
    assert find_token(tokens, "") is None


@pytest.mark.parametrize(("text", "says"), [
    (f"{LONG_A}", "entry 1 is not TOKEN=PRINCIPALS"),
    (f"{LONG_A}=public,short=public", "entry 2: the token is shorter than 16"),
    (f"{LONG_A}=user:U1+admin", "principal 'admin' is not public"),
    (f"{LONG_A}=public,{LONG_A}=user:U1", "names one token twice"),
])
def test_bad_tokens_setting_names_the_entry_never_the_token(text: str, says: str) -> None:
    with pytest.raises(ValidationError) as failed:
        Settings(RAGBOT_API_TOKENS=text)
    assert says in str(failed.value)
    assert LONG_A not in str(failed.value)
