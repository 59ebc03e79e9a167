"""What the Slack listeners need, built once in ``app.create_deps`` and passed to every
``register(app, deps)``: the core's deps plus the Slack client and surface."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from bot.conversations.deps import AgentPort, ConversationDeps

if TYPE_CHECKING:
    from slack_sdk import WebClient

    from bot.slack.surface import SlackSurface

__all__ = ["AgentPort", "SlackDeps"]


@dataclass(kw_only=True)
class SlackDeps(ConversationDeps):
    client: WebClient
    slack: SlackSurface  # the same object as ``surface``, with its Slack type

    @property
    def admins(self) -> frozenset[str]:
        return self.slack.admins
