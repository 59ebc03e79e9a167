"""Bot Framework authentication and the connector client, against the local issuer and
connector over real HTTP."""

from __future__ import annotations

import httpx
import pytest
from pydantic import SecretStr

from bot.teams.auth import BotTokenProvider, InboundAuth, TeamsAuthError, TokenError, keys_url
from bot.teams.connector import Connector, ConnectorError, RetryPolicy
from tests.fakes.teams_connector import FakeConnector
from tests.fakes.teams_issuer import FakeIssuer

SERVICE = "https://smba.example.test/emea/"


def _auth(issuer: FakeIssuer) -> InboundAuth:
    auth = InboundAuth(issuer.app_id, issuer.metadata_url)
    auth.start()
    return auth


def _tokens(issuer: FakeIssuer, http: httpx.Client, **kw: object) -> BotTokenProvider:
    return BotTokenProvider(http, login_url=issuer.login_url, tenant_id=issuer.tenant_id,
                            app_id=issuer.app_id, secret=SecretStr(issuer.app_secret), **kw)  # type: ignore[arg-type]


def test_keys_are_fetched_at_start_not_on_first_request(fake_issuer: FakeIssuer) -> None:
    _auth(fake_issuer)
    assert fake_issuer.key_fetches == 1


def test_a_token_signed_by_bot_framework_for_this_app_and_service_is_accepted(
        fake_issuer: FakeIssuer) -> None:
    auth = _auth(fake_issuer)
    claims = auth.validate("Bearer " + fake_issuer.activity_token(SERVICE), SERVICE)
    assert claims["aud"] == fake_issuer.app_id
    assert fake_issuer.key_fetches == 1


@pytest.mark.parametrize("case", ["missing", "unknown_key", "wrong_audience", "expired",
                                  "other_service_url", "not_bearer"])
def test_bad_tokens_are_refused(fake_issuer: FakeIssuer, case: str) -> None:
    auth = _auth(fake_issuer)
    header = {
        "missing": None,
        "unknown_key": "Bearer " + fake_issuer.activity_token(SERVICE, unknown_key=True),
        "wrong_audience": "Bearer " + fake_issuer.activity_token(SERVICE, audience="other-app"),
        # beyond the validator's five minutes of allowed clock skew
        "expired": "Bearer " + fake_issuer.activity_token(SERVICE, expires_in_s=-600),
        "other_service_url": "Bearer " + fake_issuer.activity_token("https://evil.test/"),
        "not_bearer": "Basic " + fake_issuer.activity_token(SERVICE),
    }[case]
    with pytest.raises(TeamsAuthError):
        auth.validate(header, SERVICE)


def test_metadata_url_must_name_the_openid_document() -> None:
    assert keys_url("https://x.test/v1/.well-known/openidconfiguration") == \
        "https://x.test/v1/.well-known/keys"
    with pytest.raises(ValueError, match="RAGBOT_TEAMS_OPENID_METADATA_URL"):
        keys_url("https://x.test/v1/keys.json")


def test_bot_token_is_fetched_once_and_reused_until_near_expiry(
        fake_issuer: FakeIssuer) -> None:
    now = [1000.0]
    with httpx.Client() as http:
        tokens = _tokens(fake_issuer, http, clock=lambda: now[0], margin_s=300.0)
        first = tokens.token()
        assert tokens.token() == first
        now[0] += 3600 - 301  # inside the margin: still cached
        assert tokens.token() == first
        now[0] += 2
        assert tokens.token() != first
    assert len(fake_issuer.token_requests) == 2
    request = fake_issuer.token_requests[0]
    assert request["scope"] == "https://api.botframework.com/.default"
    assert request["grant_type"] == "client_credentials"


def test_wrong_secret_is_a_clear_error_without_the_secret(fake_issuer: FakeIssuer) -> None:
    with httpx.Client() as http:
        tokens = BotTokenProvider(http, login_url=fake_issuer.login_url,
                                  tenant_id=fake_issuer.tenant_id, app_id=fake_issuer.app_id,
                                  secret=SecretStr("not-the-secret-xyz"))
        with pytest.raises(TokenError, match="RAGBOT_TEAMS_APP_SECRET") as err:
            tokens.token()
    assert "not-the-secret-xyz" not in str(err.value)


def _connector(issuer: FakeIssuer, http: httpx.Client, sleeps: list[float]) -> Connector:
    return Connector(http, _tokens(issuer, http), sleep=sleeps.append,
                     retry=RetryPolicy(attempts=4, base_delay_s=0.01))


def test_create_and_update_reach_the_conversation(fake_issuer: FakeIssuer,
                                                  fake_connector: FakeConnector) -> None:
    with httpx.Client() as http:
        c = _connector(fake_issuer, http, [])
        conv = "19:abc@thread.tacv2;messageid=1700000000000"
        aid = c.create(fake_connector.service_url, conv, {"type": "message", "text": "one"})
        c.update(fake_connector.service_url, conv, aid, {"type": "message", "text": "two"})
    assert [m["text"] for m in fake_connector.messages(conv)] == ["two"]


def test_throttled_create_is_retried_after_retry_after(fake_issuer: FakeIssuer,
                                                       fake_connector: FakeConnector) -> None:
    fake_connector.fail_next(429, times=2, retry_after=2)
    sleeps: list[float] = []
    with httpx.Client() as http:
        _connector(fake_issuer, http, sleeps).create(
            fake_connector.service_url, "a:1", {"type": "message", "text": "hi"})
    assert sleeps == [2.0, 2.0]
    assert len(fake_connector.messages("a:1")) == 1


def test_gateway_error_on_create_is_not_retried_but_on_update_it_is(
        fake_issuer: FakeIssuer, fake_connector: FakeConnector) -> None:
    sleeps: list[float] = []
    with httpx.Client() as http:
        c = _connector(fake_issuer, http, sleeps)
        fake_connector.fail_next(502, retry_after=None)
        # the message may exist after a 502: a second create could post it twice
        with pytest.raises(ConnectorError) as err:
            c.create(fake_connector.service_url, "a:2", {"type": "message", "text": "x"})
        assert err.value.status == 502
        aid = c.create(fake_connector.service_url, "a:2", {"type": "message", "text": "x"})
        fake_connector.fail_next(504, times=2, retry_after=None)
        c.update(fake_connector.service_url, "a:2", aid, {"type": "message", "text": "y"})
    assert len(sleeps) == 2
    assert [m["text"] for m in fake_connector.messages("a:2")] == ["y"]


def test_revoked_token_is_replaced_once(fake_issuer: FakeIssuer,
                                        fake_connector: FakeConnector) -> None:
    with httpx.Client() as http:
        c = _connector(fake_issuer, http, [])
        c.create(fake_connector.service_url, "a:3", {"type": "message", "text": "1"})
        fake_issuer.revoke_all()
        c.create(fake_connector.service_url, "a:3", {"type": "message", "text": "2"})
    assert len(fake_connector.messages("a:3")) == 2
    assert len(fake_issuer.token_requests) == 2


def test_a_personal_chats_answer_streams_into_its_progress_stream_channels_do_not(
        fake_issuer: FakeIssuer, fake_connector: FakeConnector) -> None:
    from agent.types import AnswerResult, Citation
    from bot.conversations.model import Place
    from bot.teams.surface import TeamsSurface

    with httpx.Client() as http:
        surface = TeamsSurface(_connector(fake_issuer, http, []))
        chat = Place("teams", "tenant", "a:carol-1on1", "a:carol-1on1",
                     {"serviceUrl": fake_connector.service_url, "chat": "personal"})
        stream = surface.post(chat, surface.status_message("Searching…"))
        assert surface.open_answer_stream(chat, "carol", stream, "Kilns fire on Thursdays.[1]"
                                          ) == stream
        surface.append_answer_stream(chat, stream, "Kilns fire on Thursdays.[1] Glaze <b>",
                                     " Glaze <b>")
        result = AnswerResult(text="Kilns fire on Thursdays.[1]", citations=[
            Citation(n=1, doc_id="kiln", title="Kiln schedule", source="kb/kiln.md",
                     chunk_ids=(1,))], refused=False, route="single_retrieval", rounds=1,
            rewritten_query=None, trace_id="t", latency_ms=1.0)
        final = surface.answer_messages(result, lang="en")[0]
        assert surface.close_answer_stream(chat, stream, stream, final) == stream
        channel = Place("teams", "tenant", "19:room@thread.tacv2", "1700000000000",
                        {"serviceUrl": fake_connector.service_url, "chat": "channel"})
        assert surface.open_answer_stream(channel, "carol", "m1", "Kilns.[1]") is None
    updates = [r.body for r in fake_connector.requests("a:carol-1on1")]
    streaming = [u for u in updates if u["channelData"].get("streamType") == "streaming"]
    assert [u["text"] for u in streaming] == ["Kilns fire on Thursdays.[1]",
                                              "Kilns fire on Thursdays.[1] Glaze &lt;b&gt;"]
    assert {u["channelData"]["streamId"] for u in streaming} == {stream}
    assert updates[-1]["channelData"]["streamType"] == "final"
    assert fake_connector.requests("19:room@thread.tacv2;messageid=1700000000000") == []
