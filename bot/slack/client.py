"""The Slack Web API client: Slack's base URL or ``SLACK_API_URL``, retrying 429s after
``Retry-After`` and connection errors (slack_sdk retries neither 429 nor more than one
connection error by default). 5xx answers are not retried: Slack may have posted the
message already, and a duplicate answer is worse than an apology."""

from __future__ import annotations

from slack_sdk import WebClient
from slack_sdk.http_retry.builtin_handlers import (
    ConnectionErrorRetryHandler,
    RateLimitErrorRetryHandler,
)


def make_web_client(token: str | None, base_url: str, *, timeout_s: int = 30,
                    rate_limit_retries: int = 3) -> WebClient:
    """A WebClient for ``base_url`` (must end with ``/``: slack_sdk appends the method)."""
    if not base_url.endswith("/"):
        base_url += "/"
    return WebClient(
        token=token,
        base_url=base_url,
        timeout=timeout_s,
        retry_handlers=[
            ConnectionErrorRetryHandler(max_retry_count=3),
            RateLimitErrorRetryHandler(max_retry_count=rate_limit_retries),
        ],
    )
