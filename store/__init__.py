"""PostgreSQL + pgvector knowledge store: ingestion, hybrid search, reindex, state."""
