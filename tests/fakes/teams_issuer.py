"""A local Bot Framework token issuer, a real HTTP server speaking the real protocol.

- ``GET /v1/.well-known/openidconfiguration``: the OpenID metadata (issuer, jwks_uri);
- ``GET /v1/.well-known/keys``: the JWKS with the public half of its RSA signing key;
- ``POST /{tenant}/oauth2/v2.0/token``: the client-credentials grant (form-encoded
  ``client_id``, ``client_secret``, ``scope``), answering an opaque bearer token that the
  fake connector (``tests.fakes.teams_connector``) accepts.

``activity_token()`` signs the JWT Bot Framework sends with every activity; its arguments
make the bad cases (another key, another audience, expired).
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qsl

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

from tests.fakes.local_http import LocalServer

METADATA_PATH = "/v1/.well-known/openidconfiguration"
KEYS_PATH = "/v1/.well-known/keys"


def _key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


@dataclass
class FakeIssuer:
    app_id: str = "00000000-0000-0000-0000-00000000b07a"
    app_secret: str = "local-test-secret"  # noqa: S105 (a fake's credential)
    tenant_id: str = "tenant-home"
    kid: str = "local-key-1"
    token_lifetime_s: int = 3600

    def __post_init__(self) -> None:
        self._signing = _key()
        self._stranger = _key()  # signs tokens whose key the JWKS does not hold
        self._issued: set[str] = set()
        self.token_requests: list[dict[str, str]] = []
        self.key_fetches = 0
        self._lock = threading.Lock()
        self._server = LocalServer({"GET": self._get, "POST": self._post},
                                   "fake-teams-issuer")

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> FakeIssuer:
        self._server.start()
        return self

    def stop(self) -> None:
        self._server.stop()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.port('FakeIssuer')}"

    @property
    def issuer(self) -> str:
        return self.base_url

    @property
    def metadata_url(self) -> str:
        """What ``RAGBOT_TEAMS_OPENID_METADATA_URL`` is set to."""
        return self.base_url + METADATA_PATH

    @property
    def login_url(self) -> str:
        """What ``RAGBOT_TEAMS_LOGIN_URL`` is set to."""
        return self.base_url

    # ------------------------------------------------------------------ tokens

    def activity_token(self, service_url: str, *, audience: str | None = None,
                       expires_in_s: int = 600, unknown_key: bool = False) -> str:
        """The JWT Bot Framework puts in an activity's ``Authorization`` header."""
        now = int(time.time())
        claims = {"iss": self.issuer, "aud": audience or self.app_id, "iat": now - 5,
                  "nbf": now - 5, "exp": now + expires_in_s, "serviceurl": service_url}
        key = self._stranger if unknown_key else self._signing
        kid = "unknown-key" if unknown_key else self.kid
        return jwt.encode(claims, key, algorithm="RS256", headers={"kid": kid})

    def accepts(self, bearer: str) -> bool:
        """Whether ``bearer`` is a token this issuer handed to the bot."""
        with self._lock:
            return bearer in self._issued

    def revoke_all(self) -> None:
        with self._lock:
            self._issued.clear()

    # ------------------------------------------------------------------ HTTP

    def _get(self, req: BaseHTTPRequestHandler) -> None:
        if req.path == METADATA_PATH:
            self._send(req, 200, {"issuer": self.issuer, "jwks_uri": self.base_url + KEYS_PATH,
                                  "id_token_signing_alg_values_supported": ["RS256"],
                                  "token_endpoint_auth_methods_supported": ["private_key_jwt"]})
        elif req.path == KEYS_PATH:
            with self._lock:
                self.key_fetches += 1
            jwk = json.loads(RSAAlgorithm.to_jwk(self._signing.public_key()))
            jwk.update({"kid": self.kid, "use": "sig", "alg": "RS256"})
            self._send(req, 200, {"keys": [jwk]})
        else:
            self._send(req, 404, {"error": "not_found"})

    def _post(self, req: BaseHTTPRequestHandler) -> None:
        length = int(req.headers.get("Content-Length") or 0)
        form = dict(parse_qsl(req.rfile.read(length).decode()))
        if req.path != f"/{self.tenant_id}/oauth2/v2.0/token":
            self._send(req, 400, {"error": "invalid_tenant"})
            return
        with self._lock:
            self.token_requests.append({k: v for k, v in form.items() if k != "client_secret"})
        if form.get("grant_type") != "client_credentials" or \
                form.get("client_id") != self.app_id or \
                form.get("client_secret") != self.app_secret:
            self._send(req, 401, {"error": "invalid_client"})
            return
        token = secrets.token_urlsafe(24)
        with self._lock:
            self._issued.add(token)
        self._send(req, 200, {"token_type": "Bearer", "expires_in": self.token_lifetime_s,
                              "access_token": token})

    @staticmethod
    def _send(req: BaseHTTPRequestHandler, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        req.send_response(status)
        req.send_header("Content-Type", "application/json")
        req.send_header("Content-Length", str(len(data)))
        req.end_headers()
        req.wfile.write(data)


def serve_issuer() -> Iterator[FakeIssuer]:
    issuer = FakeIssuer().start()
    try:
        yield issuer
    finally:
        issuer.stop()
