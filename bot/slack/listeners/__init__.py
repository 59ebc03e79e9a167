"""Slack features, each wired by its own ``register(app, deps)``."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from slack_bolt import App

    from bot.slack.deps import SlackDeps


def register_all(app: App, deps: SlackDeps) -> None:
    """Wire every feature. Dedup is global middleware and so comes first."""
    from bot.slack.listeners import clarify, commands, dedup, feedback, questions

    dedup.register(app, deps)
    questions.register(app, deps)
    clarify.register(app, deps)
    feedback.register(app, deps)
    if deps.jobs is not None:
        commands.register(app, deps)
