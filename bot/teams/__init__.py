"""The Microsoft Teams surface: Bot Framework authentication, the connector client,
activities translated into questions, answers rendered as Teams messages, the app package.

The Teams SDK (``microsoft_teams``) is imported inside functions only: it takes seconds to
import and loads a ``.env`` file into the environment when it does, so nothing happens
unless Teams is configured.
"""
