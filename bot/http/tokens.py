"""Bearer tokens of the query API (``RAGBOT_API_TOKENS``), each bound to the access
principals its holder may read with.

``token1=user:U1+group:G2,token2=public``: the first token reads what user U1 and group G2
may read (public documents always), the second only public documents.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from dataclasses import dataclass

from pydantic import SecretStr

from store.types import PUBLIC

_PRINCIPAL = re.compile(r"(user|group|channel):[A-Za-z0-9_.@-]+")


@dataclass(frozen=True)
class ApiToken:
    secret: SecretStr  # never printed: SecretStr's repr masks it
    principals: tuple[str, ...]  # always starts with "public"

    @property
    def label(self) -> str:
        """A stable name for the token that reveals nothing of it (thread ids, logs)."""
        digest = hashlib.sha256(self.secret.get_secret_value().encode()).hexdigest()
        return f"t{digest[:12]}"


def parse_tokens(text: str) -> tuple[ApiToken, ...]:
    """Parse ``RAGBOT_API_TOKENS``; a bad entry raises ValueError naming it (by position,
    never by its token) and the expected form."""
    tokens: list[ApiToken] = []
    for i, entry in enumerate((e.strip() for e in text.split(",")), start=1):
        if not entry:
            continue
        secret, sep, spec = entry.partition("=")
        where = f"RAGBOT_API_TOKENS entry {i}"
        if not sep or not secret.strip() or not spec.strip():
            raise ValueError(f"{where} is not TOKEN=PRINCIPALS "
                             "(e.g. s3cret=user:U1+group:finance, or s3cret=public)")
        if len(secret.strip()) < 16:
            raise ValueError(f"{where}: the token is shorter than 16 characters; use a long "
                             "random one (python -c 'import secrets; "
                             "print(secrets.token_urlsafe(32))')")
        principals = [PUBLIC]
        for p in (p.strip() for p in spec.split("+")):
            if p == PUBLIC:
                continue
            if not _PRINCIPAL.fullmatch(p):
                raise ValueError(f"{where}: principal {p!r} is not public, user:ID, "
                                 "group:NAME or channel:ID")
            principals.append(p)
        tokens.append(ApiToken(SecretStr(secret.strip()), tuple(dict.fromkeys(principals))))
    if len({t.secret.get_secret_value() for t in tokens}) != len(tokens):
        raise ValueError("RAGBOT_API_TOKENS names one token twice; give each holder its own")
    return tuple(tokens)


def find_token(tokens: tuple[ApiToken, ...], presented: str) -> ApiToken | None:
    """The token ``presented`` matches, compared in constant time against every token (so
    the time taken says nothing about which, or how much of one, matched)."""
    given = presented.encode()
    found: ApiToken | None = None
    for token in tokens:
        if hmac.compare_digest(token.secret.get_secret_value().encode(), given):
            found = token
    return found
