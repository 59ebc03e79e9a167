"""Evaluation on datasets in the ../shared/datasets format.

``dataset`` loads questions, ``metrics`` are pure scoring functions, ``runner`` replays the
questions through a pluggable per-question step (retrieval only here; the agent adds its own)
and writes one result line per question.
"""
