"""Fakes for the far side of wires we do not own, speaking the real protocol over HTTP."""
