"""Bot Framework authentication, both ways.

- Inbound: every activity carries a JWT signed by Bot Framework. ``InboundAuth`` checks it
  with the Teams SDK's ``TokenValidator`` pointed at the configured OpenID metadata URL
  (issuer from the metadata; signing keys from the same URL ending ``/keys``): signature,
  issuer, audience = the app id, expiry, and the ``serviceurl`` claim = the activity's.
- Outbound: the bot's own token is a client-credentials grant, POSTed to
  ``{login_url}/{tenant}/oauth2/v2.0/token`` and cached until shortly before it expires.
  MSAL refuses a plain-http authority, so tests could not use it against a local issuer;
  this small provider serves tests and production alike.
"""

from __future__ import annotations

import asyncio
import re
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import httpx
import structlog

if TYPE_CHECKING:
    from pydantic import SecretStr

log = structlog.get_logger("ragbot.teams.auth")

BOT_FRAMEWORK_SCOPE = "https://api.botframework.com/.default"


class TeamsAuthError(Exception):
    """An inbound request whose token does not prove it comes from Bot Framework."""


class TokenError(Exception):
    """The bot could not get its own token (wrong secret, tenant or login URL)."""


def keys_url(metadata_url: str) -> str:
    """Where the signing keys are: the metadata URL with ``/keys`` in place of
    ``/openidconfiguration`` (as Bot Framework publishes them)."""
    url, n = re.subn(r"/openidconfiguration$", "/keys", metadata_url)
    if n == 0:
        raise ValueError(f"RAGBOT_TEAMS_OPENID_METADATA_URL {metadata_url!r} does not end "
                         "in /openidconfiguration; set it to the OpenID metadata document "
                         "(default https://login.botframework.com/v1/.well-known/"
                         "openidconfiguration)")
    return url


class InboundAuth:
    """Validates inbound activities' bearer tokens; ``start()`` fetches the metadata and
    keys so the first request does not wait for them."""

    def __init__(self, app_id: str, metadata_url: str, *, timeout_s: float = 10.0) -> None:
        if not app_id:
            raise ValueError("RAGBOT_TEAMS_APP_ID is empty: set it to the bot's Entra app id")
        self.app_id = app_id
        self.metadata_url = metadata_url
        self.timeout_s = timeout_s
        self._validator: Any = None

    def start(self) -> None:
        """Read the issuer from the metadata and load the signing keys now."""
        from microsoft_teams.apps.auth.token_validator import (
            JwtValidationOptions,
            TokenValidator,
        )

        jwks = keys_url(self.metadata_url)
        response = httpx.get(self.metadata_url, timeout=self.timeout_s)
        response.raise_for_status()
        issuer = response.json().get("issuer")
        if not isinstance(issuer, str) or not issuer:
            raise TeamsAuthError(f"the OpenID metadata at {self.metadata_url} names no issuer")
        validator = TokenValidator(JwtValidationOptions(
            valid_issuers=[issuer], valid_audiences=[self.app_id], jwks_uri=jwks))
        # The SDK fetches keys lazily on the first token; fetch them here instead. (Its
        # PyJWKClient refreshes them itself later, and on a token with an unknown key id.)
        validator._jwks_client.get_jwk_set()
        self._validator = validator
        log.info("teams_auth_ready", issuer=issuer, keys=jwks)

    def validate(self, authorization: str | None, service_url: str | None) -> dict[str, Any]:
        """The token's claims, or ``TeamsAuthError``. Blocking (a key refresh is an HTTP
        call): run it off the event loop."""
        import jwt

        if self._validator is None:
            raise RuntimeError("InboundAuth.start() was not called")
        scheme, _, token = (authorization or "").partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise TeamsAuthError("no bearer token")
        if not service_url:
            raise TeamsAuthError("the activity has no serviceUrl")
        try:
            # validate_token is a coroutine with no awaits inside; drive it here
            claims: dict[str, Any] = asyncio.run(
                self._validator.validate_token(token.strip(), service_url))
        except (jwt.PyJWTError, ValueError) as exc:
            raise TeamsAuthError(type(exc).__name__) from exc
        return claims


class BotTokenProvider:
    """The bot's access token for the Bot Connector, from the client-credentials grant,
    reused until ``margin_s`` before it expires. Thread-safe."""

    def __init__(self, http: httpx.Client, *, login_url: str, tenant_id: str, app_id: str,
                 secret: SecretStr, scope: str = BOT_FRAMEWORK_SCOPE, margin_s: float = 300.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._http = http
        self.url = f"{login_url.rstrip('/')}/{tenant_id}/oauth2/v2.0/token"
        self._app_id = app_id
        self._secret = secret
        self._scope = scope
        self._margin_s = margin_s
        self._clock = clock
        self._lock = threading.Lock()
        self._token: str | None = None
        self._expires_at = 0.0

    def token(self) -> str:
        """A valid token, fetched when there is none or it is about to expire."""
        with self._lock:
            if self._token is None or self._clock() >= self._expires_at:
                self._fetch()
            assert self._token is not None
            return self._token

    def invalidate(self) -> None:
        """Forget the token (the connector refused it): the next call fetches another."""
        with self._lock:
            self._token = None

    def _fetch(self) -> None:
        try:
            response = self._http.post(self.url, data={
                "grant_type": "client_credentials", "client_id": self._app_id,
                "client_secret": self._secret.get_secret_value(), "scope": self._scope})
        except httpx.HTTPError as exc:
            raise TokenError(f"cannot reach the token endpoint {self.url} "
                             f"({type(exc).__name__}); check RAGBOT_TEAMS_LOGIN_URL") from exc
        if response.status_code != 200:
            # the body may echo the request; name the status and the Entra error code only
            code = _error_code(response)
            raise TokenError(f"the token endpoint {self.url} refused the bot's credentials "
                             f"(HTTP {response.status_code} {code}); check RAGBOT_TEAMS_APP_ID, "
                             "RAGBOT_TEAMS_APP_SECRET and RAGBOT_TEAMS_TENANT_ID")
        body = response.json()
        self._token = str(body["access_token"])
        lifetime = float(body.get("expires_in", 3600))
        # a token shorter-lived than the margin is still used, for half its life
        self._expires_at = self._clock() + max(lifetime - self._margin_s, lifetime / 2)
        log.info("teams_token_fetched", expires_in_s=lifetime)


def _error_code(response: httpx.Response) -> str:
    try:
        return str(response.json().get("error", ""))
    except ValueError:
        return ""
