"""The Slack surface: Bolt app wiring, event translation, Block Kit rendering, reliability."""
