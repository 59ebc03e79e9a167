"""The offline engine: deterministic rules, lexical scores, extractive answers."""
