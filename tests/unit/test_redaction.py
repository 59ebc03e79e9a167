"""The redaction processor masks each secret shape and leaves ordinary text alone."""

from __future__ import annotations

import pytest

from store.redaction import MASK, redact_event, redact_text, redact_value


@pytest.mark.parametrize(("text", "secret"), [
    ("posting with xoxb-2231-99881-QfRkTbWq7LzP", "2231-99881-QfRkTbWq7LzP"),
    ("user token xoxp-4410-5520-abcDEF0123", "4410-5520-abcDEF0123"),
    ("socket mode xapp-1-A07ZX-5511-e0f9aa", "1-A07ZX-5511-e0f9aa"),
    ("legacy xoxa-2-7781-zzTop", "2-7781-zzTop"),
    ("rotated xoxe.xoxp-1-Mi0xLTE4-refresh", "1-Mi0xLTE4-refresh"),
    ("Authorization: Bearer eyJhbGciOi.teams-jwt.Sig_9", "eyJhbGciOi.teams-jwt.Sig_9"),
    ("authorization: basic dXNlcjpodW50ZXIy", "dXNlcjpodW50ZXIy"),
    ("{'Authorization': 'xoxb-raw-in-header-77'}", "raw-in-header-77"),
    ("retrying with Bearer eyJ0eXAiOiJKV1QiLCJhbGciOi.payload.sig", "eyJ0eXAiOiJKV1Qi"),
    ("connector said 401 for eyJhbGciOiJSUzI1NiJ9.eyJhdWQiOiJib3QtNDIifQ.c2lnbmF0dXJl",
     "c2lnbmF0dXJl"),
    ("openai key sk-proj-Zq81LmNoPq_rs-77", "Zq81LmNoPq_rs-77"),
    ("calling with api_key=gw-77e1c0ffee&model=x", "gw-77e1c0ffee"),
    ('{"api_key": "lime-parrot-1138"}', "lime-parrot-1138"),
    ("conninfo host=db user=ragbot password=Tr0ub4dor&3", "Tr0ub4dor"),
    ("postgresql://ragbot:Wint3r-Orchid@db.internal:5432/ragbot", "Wint3r-Orchid"),
    ("redis://:only-a-pass@cache:6379/0", "only-a-pass"),
])
def test_each_secret_shape_is_masked(text: str, secret: str) -> None:
    out = redact_text(text)
    assert secret not in out
    assert MASK in out


def test_a_token_under_a_secret_key_is_masked_once() -> None:
    assert redact_text("token=xoxp-99-88-SeCr3t") == f"token={MASK}"
    assert redact_text('"api_key": "sk-abcdefghijk12"') == f'"api_key": "{MASK}"'


def test_ordinary_text_is_left_alone() -> None:
    text = ("What is the basic deploy procedure? Bearer of bad news, Basic Income report; "
            "turn answered in 812 ms with 3 sources; tokens: 412; "
            "see https://wiki.example.com/runbooks/redis and postgresql://db.internal/ragbot")
    assert redact_text(text) == text


def test_url_keeps_user_and_host_for_debugging() -> None:
    out = redact_text("connect postgresql://ragbot:pw-7781@db.internal:5432/kb failed")
    assert out == f"connect postgresql://ragbot:{MASK}@db.internal:5432/kb failed"


def test_event_values_nested_dicts_lists_and_secret_keys_are_masked() -> None:
    event = {
        "event": "slack call failed for xoxb-1-2-SeCrEt",
        "headers": {"Authorization": "Bearer abc.def.ghi", "Accept": "json"},
        "urls": ["postgresql://u:hunter22@h/db", ("sk-live0123456789ab",)],
        "password": "plain-but-keyed",
        "count": 3,
        "exception": [{"exc_value": "invalid_auth (token xoxp-9-9-Leak)"}],
    }
    out = redact_event(None, "error", event)
    flat = repr(out)
    for secret in ("SeCrEt", "abc.def.ghi", "hunter22", "live0123456789ab",
                   "plain-but-keyed", "xoxp-9-9-Leak"):
        assert secret not in flat
    assert out["count"] == 3
    assert out["headers"]["Accept"] == "json"
    assert isinstance(out["urls"][1], tuple)


def test_objects_are_masked_through_their_repr_only_when_it_holds_a_secret() -> None:
    class Conn:
        def __repr__(self) -> str:
            return "<Conn postgresql://app:s3cr3t-9@db/app>"

    marker = object()
    assert redact_value(marker) is marker
    assert "s3cr3t-9" not in redact_value(Conn())
