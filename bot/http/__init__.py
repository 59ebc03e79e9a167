"""The HTTP surface: one ASGI app (Slack events, health, metrics, query API) under uvicorn."""
